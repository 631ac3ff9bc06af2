"""Checking a result file against the schema it embeds (docs/result-format.md).

Every result file from overlap-bench 0.2 on carries, under "schema", the description of
its metadata, config, points and timing, generated from the same C++ field lists that wrote
them. One reader therefore checks every kind, including kinds this report has no figure
for: each field present, of its kind, null only where allowed, names from their
vocabulary, nested sections recursively. Files written before that (schema_version 1 of
nbc and impact) are read through the checks kept in report_legacy.
"""
import json
import math


class InputError(Exception):
    """What is wrong with one file, as one line without the file name."""


def _is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


KINDS = {
    "number": _is_number,
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "text": lambda v: isinstance(v, str),
    "name": lambda v: isinstance(v, str),
    "numbers": lambda v: isinstance(v, list) and all(_is_number(x) for x in v),
    "names": lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v),
    "section": lambda v: isinstance(v, dict),
    "sections": lambda v: isinstance(v, list) and all(isinstance(x, dict) for x in v),
    "mapping": lambda v: isinstance(v, dict) and all(isinstance(x, str) for x in v.values()),
}
FLAT = {"number", "integer", "boolean", "text", "name"}
SECTIONS = ("metadata", "config", "points", "timing")


def check_schema_description(schema):
    """The embedded schema itself: a list of field descriptions per section."""
    if not isinstance(schema, dict) or not all(k in schema for k in SECTIONS):
        raise InputError("'schema' is missing or does not describe metadata, config, points "
                         "and timing")
    for section in SECTIONS:
        _check_description(schema[section], f"schema.{section}")
    return schema


def _check_description(fields, where):
    if not isinstance(fields, list):
        raise InputError(f"{where} is not a list of fields")
    for f in fields:
        if not (isinstance(f, dict) and isinstance(f.get("name"), str)
                and f.get("kind") in KINDS and isinstance(f.get("nullable"), bool)):
            raise InputError(f"{where}: {json.dumps(f)[:80]} is not a field description")
        if f["kind"] in ("section", "sections"):
            _check_description(f.get("fields", []), f"{where}.{f['name']}")


def check_fields(obj, fields, where):
    """Raises InputError for the first field that disagrees with its description."""
    if not isinstance(obj, dict):
        raise InputError(f"{where} is not an object")
    for f in fields:
        name = f["name"]
        if name not in obj:
            if f["kind"] == "mapping":
                continue  # a mapping may be left out when empty (null_reasons)
            raise InputError(f"{where}: '{name}' is missing")
        v = obj[name]
        at = f"{where}: '{name}'"
        if v is None:
            if not f["nullable"]:
                raise InputError(f"{at} is null, which its schema does not allow")
            continue
        if not KINDS[f["kind"]](v):
            raise InputError(f"{at} is {json.dumps(v)[:60]}, expected {f['kind']}")
        allowed = f.get("allowed")
        if allowed:
            for x in v if isinstance(v, list) else [v]:
                if x not in allowed:
                    raise InputError(f"{at} is {json.dumps(x)}, allowed: {', '.join(allowed)}")
        if f["kind"] == "section":
            check_fields(v, f.get("fields", []), f"{where} {name}")
        if f["kind"] == "sections":
            for i, x in enumerate(v):
                check_fields(x, f.get("fields", []), f"{where} {name}[{i}]")


def field(fields, name):
    for f in fields:
        if f["name"] == name:
            return f
    return None


def flat_fields(fields):
    return [f for f in fields if f["kind"] in FLAT]


def measured_fields(fields):
    """Fields an invalid point must not show: the nullable numbers and sections."""
    return [f["name"] for f in fields
            if f["nullable"] and f["kind"] in ("number", "numbers", "section")]
