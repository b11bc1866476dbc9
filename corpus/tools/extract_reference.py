#!/usr/bin/env python3
"""Extract the JSON example objects from the stream-json field reference.

Usage (from the repository root):

    python3 corpus/tools/extract_reference.py [REFERENCE_TXT]

REFERENCE_TXT defaults to ../shared/spec/stream-json-reference.zh.txt relative
to the repository root.  A relative REFERENCE_TXT given on the command line is
resolved against the current directory.

An example is a pretty-printed object whose first line starts at column 0 with
"{" and whose last line is exactly "}".  Several objects may follow each other
without a blank line; each one is a separate example.  TypeScript definitions
(`interface X { ... }`, `type X = ...`) never start with "{" at column 0, so
they are skipped; a closing "}" at column 0 is only meaningful while inside an
example.

Output (regenerated from scratch on every run):

    corpus/reference/examples.jsonl    every example compacted to one LF-terminated
                                       line, in document order
    corpus/reference/examples.tsv      one row per example: line in examples.jsonl,
                                       label NN-<kind>, lines in the reference

Each example is written once, so that `cctape stats corpus` counts it once.
<kind> is "type", or "type-subtype" for system/result, with these refinements:
    stream_event -> stream_event-<event.type>
    assistant    -> assistant-synthetic when message.model == "<synthetic>"
    user         -> user-tool_result / user-text (first content block type),
                    user-string when message.content is a string
Stdlib only (Python 3.11).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_REFERENCE = REPO_ROOT / ".." / "shared" / "spec" / "stream-json-reference.zh.txt"
OUT_DIR = REPO_ROOT / "corpus" / "reference"


class ExtractError(Exception):
    pass


def extract_blocks(text: str) -> list[tuple[int, int, str]]:
    """Return (first_line, last_line, source) for every column-0 { ... } object."""
    blocks: list[tuple[int, int, str]] = []
    lines = text.split("\n")
    start: int | None = None
    buf: list[str] = []
    for lineno, line in enumerate(lines, 1):
        if start is None:
            if line.startswith("{"):
                start = lineno
                buf = [line]
                # A one-line object at column 0 ("{...}") is complete on its own.
                if line.rstrip().endswith("}") and _balanced(line):
                    blocks.append((start, lineno, line))
                    start = None
            continue
        buf.append(line)
        if line == "}":
            blocks.append((start, lineno, "\n".join(buf)))
            start = None
        elif line.startswith("{") or (line and not line[0].isspace() and line != "}"):
            raise ExtractError(
                f"line {lineno}: unexpected column-0 text inside the example "
                f"that starts at line {start}: {line[:60]!r}"
            )
    if start is not None:
        raise ExtractError(f"line {start}: example is never closed by a line that is exactly '}}'")
    return blocks


def _balanced(line: str) -> bool:
    try:
        json.loads(line)
        return True
    except json.JSONDecodeError:
        return False


def kind_of(obj: dict) -> str:
    t = obj.get("type")
    if not isinstance(t, str):
        raise ExtractError(f"example without a string type: {obj!r:.80}")
    if t in ("system", "result"):
        sub = obj.get("subtype")
        return f"{t}-{sub}" if isinstance(sub, str) else t
    if t == "stream_event":
        ev = obj.get("event") or {}
        return f"{t}-{ev.get('type')}" if isinstance(ev, dict) and ev.get("type") else t
    msg = obj.get("message") if isinstance(obj.get("message"), dict) else {}
    if t == "assistant":
        return "assistant-synthetic" if msg.get("model") == "<synthetic>" else "assistant"
    if t == "user":
        content = msg.get("content")
        if isinstance(content, str):
            return "user-string"
        if isinstance(content, list) and content and isinstance(content[0], dict):
            ctype = content[0].get("type")
            if ctype in ("tool_result", "text"):
                return f"user-{ctype}"
        return "user"
    return t


def compact(obj: object) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def main(argv: list[str]) -> int:
    ref = Path(argv[1]) if len(argv) > 1 else DEFAULT_REFERENCE
    text = ref.read_text(encoding="utf-8")
    if "\r" in text:
        raise ExtractError(f"{ref}: contains CR characters")

    examples: list[tuple[int, int, str, object]] = []
    for first, last, src in extract_blocks(text):
        try:
            obj = json.loads(src)
        except json.JSONDecodeError as e:
            raise ExtractError(f"lines {first}-{last}: not valid JSON: {e}") from None
        if not isinstance(obj, dict):
            raise ExtractError(f"lines {first}-{last}: example is not an object")
        examples.append((first, last, kind_of(obj), obj))

    if not examples:
        raise ExtractError(f"{ref}: no examples found")
    if len(examples) > 99:
        raise ExtractError("more than 99 examples; widen NN")

    OUT_DIR.mkdir(parents=True, exist_ok=True)
    # Earlier layouts: one file per example and all.jsonl beside them.
    for stale in [*OUT_DIR.glob("[0-9][0-9]-*.jsonl"), OUT_DIR / "all.jsonl"]:
        stale.unlink(missing_ok=True)

    all_lines: list[str] = []
    index = ["line\tlabel\treference_lines"]
    print(f"reference: {ref.resolve()}")
    for n, (first, last, kind, obj) in enumerate(examples, 1):
        line = compact(obj)
        # Round trip: the compact line must parse back to the same object.
        assert json.loads(line) == obj
        label = f"{n:02d}-{kind}"
        all_lines.append(line)
        index.append(f"{n}\t{label}\t{first}-{last}")
        print(f"  {label:<45} lines {first:>4}-{last:<4} {len(line):>5} bytes")
    (OUT_DIR / "examples.jsonl").write_bytes(("\n".join(all_lines) + "\n").encode("utf-8"))
    (OUT_DIR / "examples.tsv").write_bytes(("\n".join(index) + "\n").encode("utf-8"))

    kinds: dict[str, int] = {}
    for _, _, kind, _ in examples:
        kinds[kind] = kinds.get(kind, 0) + 1
    print(f"{len(examples)} examples -> {OUT_DIR.relative_to(REPO_ROOT)}/examples.jsonl (index: examples.tsv)")
    print("by kind: " + ", ".join(f"{k}={v}" for k, v in kinds.items()))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except ExtractError as e:
        print(f"extract_reference: error: {e}", file=sys.stderr)
        sys.exit(1)
