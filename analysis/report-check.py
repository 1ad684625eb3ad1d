#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Validate report.json files against analysis/report.schema.json.

    report-check.py REPORT.json...

report.schema.json refers to run.schema.json (the run's record, embedded
in report.json) by its file name: both are loaded from this directory and
the reference resolved from them, never fetched (their $id addresses do
not exist). Prints "ok FILE" or "invalid FILE: <path in the document>:
<message>" per file (every error, not only the first); exit 0 if all are
valid, 1 if not, 2 on a missing file or a schema that is not itself valid.
"""

import json
import os
import sys

import jsonschema

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMAS = [os.path.join(HERE, "report.schema.json"), os.path.join(HERE, "run.schema.json")]


def load_schemas():
    """(report schema, resolver that knows every schema here by its $id)."""
    loaded = []
    for path in SCHEMAS:
        try:
            with open(path, encoding="utf-8") as f:
                schema = json.load(f)
        except OSError as e:
            raise ValueError(f"{path}: {e.strerror}") from None
        except ValueError as e:
            raise ValueError(f"{path}: not JSON: {e}") from None
        cls = jsonschema.validators.validator_for(schema)
        try:
            cls.check_schema(schema)
        except jsonschema.SchemaError as e:
            raise ValueError(f"{path}: {e.message}") from None
        if "$id" not in schema:
            raise ValueError(f"{path}: no $id to resolve references by")
        loaded.append(schema)
    store = {s["$id"]: s for s in loaded}
    resolver = jsonschema.RefResolver.from_schema(loaded[0], store=store)
    return loaded[0], resolver


def main(paths):
    if not paths:
        print("usage: report-check.py REPORT.json...", file=sys.stderr)
        return 2
    try:
        schema, resolver = load_schemas()
    except ValueError as e:
        print(f"report-check.py: error: {e}", file=sys.stderr)
        return 2
    validator = jsonschema.validators.validator_for(schema)(schema, resolver=resolver)
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
        try:
            errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
        except jsonschema.RefResolutionError as e:
            print(f"report-check.py: error: {SCHEMAS[0]}: a reference does not resolve: {e}", file=sys.stderr)
            return 2
        if not errors:
            print(f"ok {p}")
        for e in errors:
            where = "/".join(str(x) for x in e.absolute_path) or "(top)"
            print(f"invalid {p}: {where}: {e.message[:300]}")
            rc = 1
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
