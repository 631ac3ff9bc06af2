#!/usr/bin/python3
"""The emulated link never runs faster than its rate (docs/emulated-cluster.md, "Bursts").

A tbf bucket larger than one packet lets the bytes that fit in it leave at memory speed
after any idle gap, so every phase that starts after a barrier or a window gap would see a
faster link than the wire. This sends SIZE bytes of TCP from node 0 to node 1 after an idle
gap, ROUNDS times, and fails when any transfer (first byte sent to the receiver's
acknowledgement of the last) took less than (SIZE - one frame) / rate. One frame (MTU + 14
bytes) is the emulation's limit: a wire serialises the first frame too, a veth hands it over
at once, and tbf's peak bucket must hold a whole frame (0.52 ms at MTU 65000, 1 Gbit/s). The
old 256 KiB burst beat the floor by 1.4 ms on 1 MiB.

    check_cluster_link.py --cluster scripts/cluster [--size BYTES] [--gap S] [--rounds N]

Root, with the cluster up (at least 2 nodes, a shaped rate). Exit 0 pass, 1 fail, 77 skip.
"""
import argparse
import json
import os
import re
import socket
import subprocess
import sys
import time

UNITS = {"": 1, "k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12}


def rate_bits(text):
    """tc's rate syntax as scripts/cluster accepts it: 100mbit, 1gbit, 125mbps (bytes/s)."""
    m = re.fullmatch(r"([0-9.]+)([kmgt]?)(bit|bps)", text.lower())
    if not m:
        raise ValueError(f"rate '{text}' is not a tc rate")
    return float(m.group(1)) * UNITS[m.group(2)] * (8 if m.group(3) == "bps" else 1)


def cluster_status(cluster):
    """(rate in bit/s or None, MTU, [node names]) from `cluster status`."""
    p = subprocess.run([cluster, "status"], capture_output=True, text=True)
    if p.returncode != 0:
        return None, 0, []
    m = re.search(r"rate:\s*(\S+)", p.stdout)
    mtu = re.search(r"MTU:\s*(\d+)", p.stdout)
    nodes = re.findall(r"^\s+(\S+)\s+198\.18\.\d+\.\d+\s", p.stdout, re.M)
    rate = None if not m or m.group(1) == "none" else rate_bits(m.group(1))
    return rate, int(mtu.group(1)) if mtu else 0, nodes


def serve():
    """Receiver: accept one connection; per round read SIZE bytes, answer one byte."""
    srv = socket.socket()
    srv.bind(("0.0.0.0", 0))
    srv.listen(1)
    print(srv.getsockname()[1], flush=True)
    conn, _ = srv.accept()
    size, rounds = json.loads(conn.recv(64).decode())
    conn.sendall(b"r")
    for _ in range(rounds + 1):  # one warm-up transfer, then the rounds
        left = size
        while left:
            chunk = conn.recv(min(left, 1 << 20))
            if not chunk:
                return
            left -= len(chunk)
        conn.sendall(b"a")


def send(address, port, size, gap, rounds):
    """Sender: a warm-up transfer (connection, windows), then per round an idle gap and
    one timed transfer. Prints the times as JSON."""
    conn = socket.create_connection((address, port))
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    conn.sendall(json.dumps([size, rounds]).encode().ljust(64))
    conn.recv(1)
    payload = b"x" * size
    times = []
    for i in range(rounds + 1):
        time.sleep(gap)
        t0 = time.monotonic()
        conn.sendall(payload)
        if conn.recv(1) != b"a":
            raise SystemExit("receiver closed early")
        if i:
            times.append(time.monotonic() - t0)
    print(json.dumps(times), flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cluster")
    ap.add_argument("--size", type=int, default=1 << 20)
    ap.add_argument("--gap", type=float, default=0.05)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--send", nargs=2, metavar=("ADDRESS", "PORT"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.serve:
        return serve()
    if args.send:
        return send(args.send[0], int(args.send[1]), args.size, args.gap, args.rounds)
    if os.geteuid() != 0:
        print("SKIP: the emulated cluster needs root")
        sys.exit(77)
    rate, mtu, nodes = cluster_status(args.cluster)
    if len(nodes) < 2 or rate is None:
        print(f"FAIL: need a shaped cluster of 2+ nodes (rate {rate}, nodes {nodes})")
        sys.exit(1)
    me = os.path.abspath(__file__)
    server = subprocess.Popen(["ip", "netns", "exec", nodes[1], sys.executable, me, "--serve"],
                              stdout=subprocess.PIPE, text=True)
    try:
        port = server.stdout.readline().strip()
        address = "198.18.0.11"  # node 1 (scripts/cluster: node i is .(10 + i))
        p = subprocess.run(["ip", "netns", "exec", nodes[0], sys.executable, me, "--send", address,
                            port, "--size", str(args.size), "--gap", str(args.gap),
                            "--rounds", str(args.rounds)],
                           capture_output=True, text=True, timeout=120)
    finally:
        server.wait(timeout=30)
    if p.returncode != 0:
        print(f"FAIL: sender exit {p.returncode}: {p.stderr.strip()}")
        sys.exit(1)
    times = json.loads(p.stdout)
    frame = mtu + 14
    floor = (args.size - frame) * 8 / rate
    print(f"{args.size} B from {nodes[0]} to {nodes[1]} after {args.gap * 1e3:.0f} ms idle at "
          f"{rate / 1e9:g} Gbit/s: wire time {args.size * 8 / rate * 1e3:.3f} ms, at least "
          f"{floor * 1e3:.3f} ms (all but one {frame}-byte frame at the rate):")
    bad = [t for t in times if t < floor]
    for t in times:
        print(f"  {'ok  ' if t >= floor else 'FAIL'} {t * 1e3:.3f} ms")
    if bad:
        print(f"FAIL: {len(bad)} of {len(times)} transfers beat the link rate (a burst)")
        sys.exit(1)
    print("PASS: no transfer after an idle gap was faster than the link rate")


if __name__ == "__main__":
    main()
