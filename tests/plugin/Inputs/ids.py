# Prints "KIND LINE COLUMN STABLE_ID" for every vertex of a scalana-dump --json PSG.
import json
import sys

for unit in json.load(sys.stdin)["units"]:
    for v in unit["vertices"]:
        print(v["kind"], v["first_line"], v["column"], v["stable_id"])
