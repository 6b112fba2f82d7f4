"""Every rule citation in the repository names a section that docs/rules.md has.

Citations are written ``docs/rules.md §N`` (N = 1..10, 6a, 6b; several: ``§2, §9``,
``§2-§4``); the older form ``RULES.md section N`` / ``RULES.md sections N-M`` /
``RULES.md §N`` / ``RULES.md 6b`` (the shared contract's numbering, which docs/rules.md keeps)
is accepted too until it is rewritten. A subsection number (``5.1``, ``6a.4``) cites its
section. The scan covers the .py and .md files of the package, baselines, scripts, tests, docs,
examples, README.md and CHANGELOG.md.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCANNED_DIRS = ("mcr_env", "baselines", "scripts", "tests", "docs", "examples")
SCANNED_FILES = ("README.md", "CHANGELOG.md")

_NUM = r"§?\s*\d+[a-z]?(?:\.\d+)?"
_SEP = r"\s*(?:,|-|–|\band\b)\s*"
CITATION = re.compile(
    rf"(?P<doc>docs/rules\.md|RULES\.md)\s+(?:sections?\s+)?(?P<refs>{_NUM}(?:{_SEP}{_NUM})*)"
)
"""A citation: the document, then one or more section numbers joined by ``,``, ``-`` or
``and`` (the numbers may each carry ``§``)."""


def headings(text: str) -> set[str]:
    """Section ids (``"1"``, ``"6a"``, ``"10"``) of the numbered headings of a rules page."""
    return set(re.findall(r"^#{2,3} (\d+[a-z]?)\. ", text, flags=re.M))


def cited_sections(text: str) -> list[tuple[str, str]]:
    """``(citation text, section id)`` for every section a text cites; a range ``N-M`` of plain
    numbers cites every section from N to M."""
    out = []
    for m in CITATION.finditer(text):
        refs = m.group("refs")
        parts = re.split(rf"({_SEP})", refs)
        ids = [re.match(r"§?\s*(\d+[a-z]?)", p.strip()).group(1) for p in parts[::2]]
        seps = [s.strip() for s in parts[1::2]]
        for i, sec in enumerate(ids):
            out.append((m.group(0), sec))
            if i < len(seps) and seps[i] in ("-", "–"):
                lo, hi = ids[i], ids[i + 1]
                if lo.isdigit() and hi.isdigit():
                    out.extend((m.group(0), str(n)) for n in range(int(lo) + 1, int(hi)))
    return out


def missing_sections(text: str, known: set[str]) -> list[tuple[str, str]]:
    """The citations of ``text`` whose section is not in ``known``."""
    return [(c, sec) for c, sec in cited_sections(text) if sec not in known]


def scanned_files() -> list[Path]:
    files = [ROOT / name for name in SCANNED_FILES if (ROOT / name).exists()]
    for d in SCANNED_DIRS:
        base = ROOT / d
        if base.is_dir():
            files += sorted(p for p in base.rglob("*") if p.suffix in (".py", ".md"))
    return [p for p in files if "__pycache__" not in p.parts]


KNOWN = headings((ROOT / "docs" / "rules.md").read_text(encoding="utf-8"))


def test_rules_page_has_the_cited_numbering():
    assert KNOWN == {str(n) for n in range(1, 11)} | {"6a", "6b"}


def test_every_citation_in_the_repository_exists():
    bad = []
    n = 0
    for path in scanned_files():
        text = path.read_text(encoding="utf-8")
        n += len(cited_sections(text))
        bad += [(str(path.relative_to(ROOT)), c, sec) for c, sec in missing_sections(text, KNOWN)]
    assert not bad, f"citations of missing sections: {bad[:10]}"
    assert n >= 100  # the scan does find the citations


# the synthetic citations are built from parts so that this file's own text cites nothing
_DOC, _OLD = "docs/rules" + ".md", "RULES" + ".md"


def test_parser_reads_every_citation_form():
    text = (
        f"{_DOC} §7 item 3; {_DOC} §2 and §9; {_DOC} §2-§4, §7 and §10; "
        f"{_OLD} section 5.1; {_OLD} sections 5-7; {_OLD} sections 6, 6a, 6b, 7; "
        f"{_OLD} §3 research option; {_OLD} 6a 44-47; {_DOC}\n§6b"
    )
    assert [sec for _, sec in cited_sections(text)] == [
        "7",
        "2",
        "9",
        "2",
        "3",
        "4",
        "7",
        "10",
        "5",
        "5",
        "6",
        "7",
        "6",
        "6a",
        "6b",
        "7",
        "3",
        "6a",  # "44-47" are fan numbers after the section, not sections
        "6b",
    ]
    assert not missing_sections(text, KNOWN)


def test_citation_of_a_missing_section_fails():
    text = f"see {_DOC} §11, {_OLD} section 12, {_OLD} §6c and {_DOC} §9-§12 (ok: {_DOC} §6a)"
    assert [sec for _, sec in missing_sections(text, KNOWN)] == ["11", "12", "6c", "11", "12"]
    assert [sec for _, sec in missing_sections(f"{_DOC} §6a", KNOWN)] == []


OUTSIDE_DOCS = re.compile(r"(?<![\w/.])(RULES|DESIGN)\.md")
"""A reference to the shared contract files outside the repository (``RULES.md``,
``DESIGN.md``): the code cites the project's own ``docs/rules.md`` and ``docs/design.md``."""


def test_citations_point_into_the_repository():
    this = Path(__file__).resolve()
    bad = []
    for path in scanned_files():
        if path.resolve() == this:
            continue  # this file names the old forms to recognise them
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if OUTSIDE_DOCS.search(line):
                bad.append(f"{path.relative_to(ROOT)}:{i}: {line.strip()}")
    assert not bad, "cite docs/rules.md or docs/design.md instead:\n" + "\n".join(bad[:20])


def test_outside_reference_pattern_on_synthetic_text():
    assert OUTSIDE_DOCS.search("as RULES.md section 2 says")
    assert OUTSIDE_DOCS.search("(DESIGN.md layout)")
    assert not OUTSIDE_DOCS.search("see docs/rules.md §2 and docs/design.md")
