#!/usr/bin/python3
"""Tables of the issue-13 figures from this folder's nbc-*.json: per MPI, time and op, the
ratios, the slowdown decomposition (docs/cpu-accounting.md) and the floor, for MPI's own
collectives, MPICH's async progress and liboverlap shared before/after and with the engine
switches. Usage: summary.py [folder] > summary.md"""
import json,glob,sys,os
d=sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
def load(n):
    f=f'{d}/nbc-{n}.json'
    if not os.path.exists(f): return {}
    return {(p['impl'],p['op']):p for p in json.load(open(f))['points']}
def cell(p):
    if not p: return 'n/a'
    if p.get('invalid_reason'): return 'invalid'
    dc=p.get('decomposition') or {}
    def g(k): v=dc.get(k); return 'null' if v is None else f'{100*v:.1f}'
    return (f"{p['r_overhead']:.2f} / {p['r_comm']:.2f} / {p['r_comp_slowdown']:.2f} (p25–p75 {p['r_comp_slowdown_p25']:.2f}–{p['r_comp_slowdown_p75']:.2f}) | "
            f"{g('engine')} / {g('transport')} / {g('other')} / {g('remainder')} | {dc.get('floor_slowdown',float('nan')):.2f}")
for mpi in ['openmpi','mpich']:
  for t in ['8ms','32ms']:
    print(f'\n### {mpi}, comm = comp = {t}\n')
    print('| op | configuration | r_overhead / r_comm / r_comp_slowdown | engine / transport / other / remainder (% of t_comp_ref) | floor |')
    print('| --- | --- | --- | --- | --- |')
    cfg=[('MPI native',f'{mpi}-after-{t}','mpi'),
         ('liboverlap shared, before (11f7700)',f'{mpi}-before-11f7700-{t}','overlap'),
         ('liboverlap shared, after (default)',f'{mpi}-after-{t}','overlap'),
         ('after + wake on submit',f'{mpi}-after-wake-{t}','overlap'),
         ('after + wake + 1 µs slack',f'{mpi}-after-wake-slack-{t}','overlap')]
    if mpi=='mpich': cfg.insert(1,('MPICH async progress',f'mpich-async-{t}','mpi'))
    for op in ['ibcast','iallreduce','ialltoall']:
      for name,f,impl in cfg:
        print(f'| {op} | {name} | '+cell(load(f).get((impl,op)))+' |')
