#!/usr/bin/python3
"""validate_fixtures.py — the viewer's report fixtures conform to
docs/report.schema.json (skipped, exit 77, without python3-jsonschema).
Usage: validate_fixtures.py SCHEMA REPORT.json..."""
import json
import sys

try:
    import jsonschema
except ImportError:
    print("python3-jsonschema not installed: skipped")
    sys.exit(77)

schema = json.load(open(sys.argv[1]))
ok = True
for path in sys.argv[2:]:
    try:
        jsonschema.validate(json.load(open(path)), schema)
        print(f"ok   {path}")
    except jsonschema.ValidationError as e:
        print(f"FAIL {path}: {e.message} at {list(e.absolute_path)}")
        ok = False
sys.exit(0 if ok else 1)
