#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Validate report.json files against analysis/report.schema.json.

    report-check.py REPORT.json...

Prints "ok FILE" or "invalid FILE: <path in the document>: <message>" per
file (every error, not only the first); exit 0 if all are valid, 1 if not,
2 on a missing file or a schema that is not itself valid.
"""

import json
import os
import sys

import jsonschema

SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "report.schema.json")


def main(paths):
    if not paths:
        print("usage: report-check.py REPORT.json...", file=sys.stderr)
        return 2
    with open(SCHEMA, encoding="utf-8") as f:
        schema = json.load(f)
    cls = jsonschema.validators.validator_for(schema)
    try:
        cls.check_schema(schema)
    except jsonschema.SchemaError as e:
        print(f"report-check.py: error: {SCHEMA}: {e.message}", file=sys.stderr)
        return 2
    validator = cls(schema)
    rc = 0
    for p in paths:
        try:
            with open(p, encoding="utf-8") as f:
                doc = json.load(f)
        except OSError as e:
            print(f"report-check.py: error: {p}: {e.strerror}", file=sys.stderr)
            return 2
        except ValueError as e:
            print(f"invalid {p}: not JSON: {e}")
            rc = 1
            continue
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
        if not errors:
            print(f"ok {p}")
        for e in errors:
            where = "/".join(str(x) for x in e.absolute_path) or "(top)"
            print(f"invalid {p}: {where}: {e.message[:300]}")
            rc = 1
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
