# SPDX-License-Identifier: GPL-2.0
"""The analysis's one reader of a run's record, RUN/run.json (schema:
analysis/run.schema.json, written only by bpk).

    rec = bpk_record.load(run_dir)       # a dict, or RecordError
    bpk_record.field(rec, "cause.run")   # a nested value, None if absent
    bpk_record.CAUSES                    # {"trigger": "a BPF trigger ...", ...}

Only the envelope is checked here (a JSON object of the schema_version this
code reads): the full schema is bpk's to honour when it writes, and
report-check.py validates the record embedded in report.json. Stdlib only,
so that the report and its first look start quickly.
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
RECORD = "run.json"
SCHEMA = os.path.join(HERE, "run.schema.json")
SCHEMA_VERSION = 1


class RecordError(Exception):
    """A run record that cannot be read; str() is one line naming the file."""


def _causes():
    """The cause vocabulary, name -> meaning, in the schema's order: read
    from run.schema.json ($defs.cause), where bpk's enum is generated from
    too, so that the report cannot use a word bpk does not know."""
    try:
        with open(SCHEMA, encoding="utf-8") as f:
            cause = json.load(f)["$defs"]["cause"]
        meaning = cause["x-meaning"]
        return {name: meaning[name] for name in cause["enum"]}
    except (OSError, ValueError, KeyError, TypeError) as e:
        # the schema ships with this file: an unreadable one is a broken
        # installation, said once, not a per-run error
        raise RecordError(f"{SCHEMA}: no cause vocabulary ($defs.cause enum and x-meaning): "
                          f"{getattr(e, 'strerror', None) or e}") from e


CAUSES = _causes()


def load(run_dir):
    """RUN_DIR/run.json as a dict. Raises RecordError when it is missing or
    unreadable, not JSON, not an object, or of another schema_version."""
    path = os.path.join(run_dir, RECORD)
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        raise RecordError(f"{path}: no run record (not a run directory?)") from None
    except OSError as e:
        raise RecordError(f"{path}: {e.strerror}") from None
    except UnicodeDecodeError as e:
        raise RecordError(f"{path}: not UTF-8 text ({e.reason} at byte {e.start})") from None
    try:
        rec = json.loads(text)
    except ValueError as e:
        raise RecordError(f"{path}: not JSON: {e}") from None
    if not isinstance(rec, dict):
        raise RecordError(f"{path}: not a JSON object but {type(rec).__name__}")
    version = rec.get("schema_version")
    if version != SCHEMA_VERSION:
        raise RecordError(f"{path}: schema_version {json.dumps(version)}, this analysis reads {SCHEMA_VERSION}")
    return rec


def field(rec, path, default=None):
    """The value at a dotted PATH ("cause.run", "timings.dump_s") of the
    record REC, DEFAULT when a part of the path is absent or not an object."""
    value = rec
    for part in path.split("."):
        if not isinstance(value, dict) or part not in value:
            return default
        value = value[part]
    return value


def text(value):
    """A field's value as one text, as bpk's record_field prints it: a
    string as it is, a number or boolean as JSON writes it, null (or an
    absent field) as "", an array as its items one a line."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(text(v) for v in value)
    return json.dumps(value)


def main(argv):
    """python3 bpk_record.py RUN-DIR PATH: the field's text() on stdout
    (tests/lib.sh's record_field). An absent field prints nothing: to a
    test, an absent value and an empty one fail the same checks. Exit 1
    with one line on an unreadable record, 2 on bad arguments."""
    if len(argv) != 2:
        print("bpk_record.py: error: usage: bpk_record.py RUN-DIR FIELD.PATH", file=sys.stderr)
        return 2
    try:
        rec = load(argv[0])
    except RecordError as e:
        print(f"bpk_record.py: error: {e}", file=sys.stderr)
        return 1
    print(text(field(rec, argv[1])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
