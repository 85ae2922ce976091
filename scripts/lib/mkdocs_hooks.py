"""MkDocs hooks: pages that live outside docs/ (dataset/FORMAT.md, bench/results/*.md) join the site
without being copied, and links keep working on GitHub and on the site alike.

- `<!-- include: PATH -->` on a line of its own is replaced by the file at PATH (from the repository
  root), its relative links rebased from that file's folder.
- A relative link that leaves docs/ is rewritten: to the page that includes its target; to the
  repository file itself, added to the site, when it is not Markdown (pictures, JSON vectors); to
  plain text naming the path when it is Markdown no page includes (it is not part of the site).
Fenced code blocks are left alone. mkdocs.yml names this file under `hooks`.
"""
import os
import posixpath
import re

from mkdocs.structure.files import File

INCLUDE = re.compile(r"^<!--\s*include:\s*(\S+)\s*-->\s*$", re.M)
LINK = re.compile(r"(!?)\[([^\]\n]*)\]\(([^)\s]+)((?:\s+\"[^\"]*\")?)\)")
FENCE = re.compile(r"^(```|~~~)", re.M)
_INCLUDED = {}  # repository path of an included file -> the page including it; set by on_files


def _root(config):
    return os.path.dirname(os.path.abspath(config["config_file_path"]))


def _docs(config):
    return posixpath.relpath(os.path.abspath(config["docs_dir"]), _root(config)).replace(os.sep, "/")


def _outside_fences(text, transform):
    """Applies transform to the parts of a Markdown text that are not fenced code blocks."""
    parts, inside, start = [], False, 0
    for match in FENCE.finditer(text):
        line_start = match.start()
        if not inside:
            parts.append(transform(text[start:line_start]))
        else:
            parts.append(text[start:line_start])
        start, inside = line_start, not inside
    parts.append(text[start:] if inside else transform(text[start:]))
    return "".join(parts)


def _includes(config, files):
    """Repository path of each included file -> the docs page (src_uri) that includes it."""
    included = {}
    for file in files.documentation_pages():
        with open(file.abs_src_path, encoding="utf-8") as source:
            for path in INCLUDE.findall(source.read()):
                included[path] = file.src_uri
    return included


def _rebase(text, source_dir, page_uri, config, included, needed):
    """Rewrites the relative links of text, written in repository folder source_dir, for the page page_uri."""
    docs = _docs(config)
    page_dir = posixpath.dirname(page_uri)

    def replace(match):
        bang, label, target, title = match.groups()
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith(("#", "/")):
            return match.group(0)
        path, _, anchor = target.partition("#")
        anchor = "#" + anchor if anchor else ""
        if not path:
            return match.group(0)
        in_repo = posixpath.normpath(posixpath.join(source_dir, path))
        if in_repo.startswith(docs + "/"):
            new = posixpath.relpath(in_repo[len(docs) + 1:], page_dir or ".")
        elif in_repo in included:
            new = posixpath.relpath(included[in_repo], page_dir or ".")
        elif not in_repo.endswith(".md") and os.path.isfile(os.path.join(_root(config), in_repo)):
            needed.add(in_repo)
            new = posixpath.relpath(in_repo, page_dir or ".")
        elif in_repo.endswith(".md"):
            return f"{label} (`{in_repo}`)" if not bang else f"*{label}* (`{in_repo}`)"
        else:
            return match.group(0)  # a missing target: MkDocs reports it
        return f"{bang}[{label}]({new}{anchor}{title})"

    return _outside_fences(text, lambda part: LINK.sub(replace, part))


def _expand(markdown, page_uri, config, included, needed):
    docs = _docs(config)
    own_dir = posixpath.join(docs, posixpath.dirname(page_uri)).rstrip("/")
    text = _rebase(markdown, own_dir, page_uri, config, included, needed)

    def include(match):
        path = match.group(1)
        with open(os.path.join(_root(config), path), encoding="utf-8") as source:
            return _rebase(source.read(), posixpath.dirname(path), page_uri, config, included, needed)

    return INCLUDE.sub(include, text)


def on_files(files, config):
    """Adds the repository files that pages link to (pictures, vectors) so they are copied and links resolve."""
    included = _includes(config, files)
    needed = set()
    for file in files.documentation_pages():
        with open(file.abs_src_path, encoding="utf-8") as source:
            _expand(source.read(), file.src_uri, config, included, needed)
    for path in sorted(needed):
        if files.get_file_from_path(path) is None:
            files.append(File(path, _root(config), config["site_dir"], config["use_directory_urls"]))
    _INCLUDED.clear()
    _INCLUDED.update(included)
    return files


def on_page_markdown(markdown, page, config, files):
    return _expand(markdown, page.file.src_uri, config, _INCLUDED, set())
