#!/usr/bin/env python3
"""The reference of the baseline and compare benchmarks: Python's json.load of each file named.

    load-json.py FILE...
"""
import json, sys

for name in sys.argv[1:]:
    with open(name) as f:
        json.load(f)
