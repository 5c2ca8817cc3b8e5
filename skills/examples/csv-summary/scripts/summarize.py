#!/usr/bin/env python3
"""Profile a CSV file: its separator, row count, and per column its type, empty cells, distinct values,
numeric range and mean, and most common values. Prints JSON on standard output. Standard library only.

Usage: python3 summarize.py <file.csv> [--top N]
"""
import argparse
import csv
import json
import sys
from collections import Counter

MAX_DISTINCT = 10_000  # distinct values counted per column before giving up on an exact figure


def number(text):
    try:
        value = float(text)
    except ValueError:
        return None
    return value if value == value and value not in (float("inf"), float("-inf")) else None


def separator_of(sample):
    try:
        return csv.Sniffer().sniff(sample, delimiters=",;\t|").delimiter
    except csv.Error:
        return ","


def profile(path, top):
    with open(path, newline="", encoding="utf-8-sig") as handle:
        sample = handle.read(64 * 1024)
        handle.seek(0)
        sep = separator_of(sample)
        reader = csv.reader(handle, delimiter=sep)
        header = next(reader, None)
        if header is None:
            return {"file": path, "error": "the file is empty"}
        names = [h.strip() or f"column {i + 1}" for i, h in enumerate(header)]
        columns = [{"empty": 0, "numbers": [], "texts": 0, "counts": Counter(), "capped": False} for _ in names]
        rows = 0
        ragged = 0
        for row in reader:
            if not any(cell.strip() for cell in row):
                continue
            rows += 1
            if len(row) != len(names):
                ragged += 1
            for i, col in enumerate(columns):
                cell = row[i].strip() if i < len(row) else ""
                if cell == "":
                    col["empty"] += 1
                    continue
                value = number(cell)
                if value is None:
                    col["texts"] += 1
                else:
                    col["numbers"].append(value)
                if len(col["counts"]) < MAX_DISTINCT or cell in col["counts"]:
                    col["counts"][cell] += 1
                else:
                    col["capped"] = True
    out = []
    for name, col in zip(names, columns):
        filled = rows - col["empty"]
        kind = "empty" if filled == 0 else "number" if col["texts"] == 0 else "text"
        entry = {
            "name": name,
            "type": kind,
            "empty": col["empty"],
            "distinct": len(col["counts"]),
            "distinct_is_lower_bound": col["capped"],
            "most_common": [[value, count] for value, count in col["counts"].most_common(top)],
        }
        if kind == "number":
            nums = col["numbers"]
            entry.update({"min": min(nums), "max": max(nums), "mean": round(sum(nums) / len(nums), 6), "integers": all(n.is_integer() for n in nums)})
        out.append(entry)
    separator = {",": "comma", ";": "semicolon", "\t": "tab", "|": "pipe"}.get(sep, repr(sep))
    return {"file": path, "separator": separator, "rows": rows, "columns": len(names), "rows_with_other_column_counts": ragged, "profile": out}


def main(argv):
    parser = argparse.ArgumentParser(description="Profile a CSV file as JSON.")
    parser.add_argument("file")
    parser.add_argument("--top", type=int, default=3, help="most common values listed per column")
    args = parser.parse_args(argv[1:])
    try:
        result = profile(args.file, args.top)
    except FileNotFoundError:
        print(f"no such file: {args.file} (attachments are under /workspace/in/)", file=sys.stderr)
        return 1
    except UnicodeDecodeError:
        print(f"{args.file} is not UTF-8 text: is it a CSV file?", file=sys.stderr)
        return 1
    json.dump(result, sys.stdout, separators=(",", ":"))
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
