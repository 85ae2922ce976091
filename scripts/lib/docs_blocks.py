"""The code blocks of the documentation and what their markers say about running them.

Every bash/sh/shell/console or python block of a guide carries one of two markers on the line just
above its opening fence:

    <!-- runnable[: none|stack|pipeline] [expect="RE"] [ranks="N"] -->   run by scripts/lib/runnable_docs.py
                                                  (a value holding " is written in single quotes: expect='"ok"')
    <!-- not runnable: WHY -->                                            left alone, for the reason given

A block with neither is an error of `coverage` (a new guide block must say which it is), so a
command added to a guide is either run by a test or says why it cannot be.
"""
import dataclasses
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
MARKER = re.compile(r"""^<!--\s*runnable(?::\s*(?P<needs>none|stack|pipeline))?(?P<attributes>(?:\s+[a-z]+=(?:"[^"]*"|'[^']*'))*)\s*-->\s*$""")
NOT_RUNNABLE = re.compile(r"^<!--\s*not runnable:\s*(?P<why>.*?)\s*-->\s*$")
ATTRIBUTE = re.compile(r"""([a-z]+)=(?:"([^"]*)"|'([^']*)')""")
ATTRIBUTES = {"expect", "ranks"}
FENCE = re.compile(r"^(?P<fence>```+|~~~+)\s*(?P<lang>[A-Za-z0-9_+-]*)")
SHELLS = {"bash", "sh", "shell", "console"}
CODE = SHELLS | {"python"}


@dataclasses.dataclass
class Block:
    path: pathlib.Path
    line: int
    lang: str
    code: str
    needs: str
    expect: str | None
    ranks: int = 0

    def where(self):
        return _where(self.path, self.line)


@dataclasses.dataclass
class Unrun:
    """A code block that is not run: `why` is its marker's reason, None when it has no marker."""
    path: pathlib.Path
    line: int
    lang: str
    why: str | None

    def where(self):
        return _where(self.path, self.line)


def _where(path, line):
    return f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}:{line}"


def scan(path):
    """Every fenced block of one Markdown file that is code (bash or python), as a Block when it is
    marked runnable, else an Unrun; a marker not followed by a fenced block, or one it cannot honour,
    is an error."""
    path = pathlib.Path(path).resolve()
    lines = path.read_text(encoding="utf-8").splitlines()
    found, i = [], 0
    while i < len(lines):
        stripped = lines[i].strip()
        marker, excused = MARKER.match(stripped), NOT_RUNNABLE.match(stripped)
        opening = FENCE.match(stripped)
        if (marker or excused) and not (i + 1 < len(lines) and FENCE.match(lines[i + 1].strip())):
            raise ValueError(f"{path}:{i + 1}: a runnable or not-runnable marker must be followed by a fenced code block")
        if not (marker or excused) and re.match(r"^<!--\s*(not )?runnable\b", stripped):
            raise ValueError(f"{path}:{i + 1}: a marker that does not parse (attributes are name=\"value\" or name='value')")
        if excused and not excused.group("why"):
            raise ValueError(f"{path}:{i + 1}: a not-runnable marker says why")
        if not opening:
            i += 1
            continue
        lang = opening.group("lang").lower()
        body, j = [], i + 1
        while j < len(lines) and not lines[j].strip().startswith(opening.group("fence")):
            body.append(lines[j])
            j += 1
        if j == len(lines):
            raise ValueError(f"{path}:{i + 1}: code block never closed")
        above = lines[i - 1].strip() if i else ""
        marker, excused = MARKER.match(above), NOT_RUNNABLE.match(above)
        if marker:
            found.append(_runnable(path, i, lang, body, marker))
        elif lang in CODE:
            found.append(Unrun(path, i + 1, lang, excused.group("why") if excused else None))
        i = j + 1
    return found


def _runnable(path, i, lang, body, marker):
    """The Block of the fence opening at line index i, under the marker just above it."""
    if lang not in CODE:
        raise ValueError(f"{path}:{i + 1}: runnable blocks are bash or python, not '{lang or 'unlabelled'}'")
    attributes = {name: double or single for name, double, single in ATTRIBUTE.findall(marker.group("attributes"))}
    unknown = set(attributes) - ATTRIBUTES
    if unknown:
        raise ValueError(f"{path}:{i}: unknown marker attribute {sorted(unknown)[0]!r} (known: {sorted(ATTRIBUTES)})")
    ranks = attributes.get("ranks", "0")
    if "ranks" in attributes and (lang != "python" or not ranks.isdigit() or int(ranks) < 1):
        raise ValueError(f"{path}:{i}: ranks= is a number of processes, for python blocks only")
    return Block(path, i + 1, lang, "\n".join(body) + "\n", marker.group("needs") or "none",
                 attributes.get("expect"), int(ranks))


def collect(path):
    """The runnable blocks of one Markdown file."""
    return [block for block in scan(path) if isinstance(block, Block)]


def default_files():
    return [ROOT / "README.md"] + sorted((ROOT / "docs").rglob("*.md"))


def coverage(paths, out):
    """Writes how many code blocks are runnable, not runnable (and why) and unmarked; returns the
    number unmarked, each of them named."""
    found = [block for path in paths for block in scan(path)]
    runnable = [b for b in found if isinstance(b, Block)]
    excused = [b for b in found if isinstance(b, Unrun) and b.why]
    unmarked = [b for b in found if isinstance(b, Unrun) and not b.why]
    print(f"code blocks: {len(runnable)} runnable, {len(excused)} not runnable, {len(unmarked)} unmarked", file=out)
    for block in excused:
        print(f"  not runnable {block.where()} ({block.lang}): {block.why}", file=out)
    for block in unmarked:
        print(f"  UNMARKED {block.where()} ({block.lang}): mark it <!-- runnable ... --> or <!-- not runnable: why -->",
              file=out)
    return len(unmarked)
