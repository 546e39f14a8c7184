"""Sphinx configuration of the augsbert docs: `make docs` → _docs/html/index.html (offline, no notebook execution).

nbdev's own docs need Quarto, which is not installable here; this site renders the same notebooks with Sphinx,
myst-nb and the PyData theme. The source folder is the repository root (sphinx-build -c docs . _docs/html), limited by
`include_patterns` to docs/, nbs/ and the rendered reports, so notebooks and reports are read where they live
and the reports' relative figure links resolve. Outputs are the ones stored in the notebooks (execution off).
"""
import json, re, time
from pathlib import Path

project = "augsbert"
author = "augsbert maintainers"
copyright = f"{time.gmtime().tm_year}, {author}"
root_doc = "docs/index"

extensions = ["myst_nb"]
include_patterns = ["docs/index.md", "nbs/*.ipynb", "nbs/lessons/*.ipynb", "nbs/experiments/*.ipynb", "nbs/reports/*.ipynb", "reports/*.md"]
exclude_patterns = [".venv", ".git", "_docs", "_proc", "data", "reports/runs", "benchmarks", "tests", "augsbert",
                    "**/.ipynb_checkpoints", ".snakemake", "workflow"]

nb_execution_mode = "off"            # render the outputs stored in the notebooks; never run them
nb_merge_streams = True
myst_enable_extensions = ["dollarmath", "colon_fence", "deflist"]
myst_heading_anchors = 3
# Not errors: notebooks and reports are written by others while the site is built. A broken build (an exception,
# a page that cannot be parsed) still fails `make docs` and tests/test_docs.py.
suppress_warnings = ["mystnb.unknown_mime_type", "myst.header", "myst.xref_missing", "image.not_readable",
                     "misc.highlighting_failure", "toc.not_included"]

html_theme = "pydata_sphinx_theme"
html_title = "augsbert"
html_theme_options = {"navigation_with_keys": False, "show_toc_level": 2}
html_show_sourcelink = False
html_copy_source = False
html_extra_path = ["_extra"]          # index.html at the site's root: a redirect to docs/index.html

# nbdev cell directives (`#| export`, `#| hide`, …) are instructions to nbdev, not content: cells marked
# `#| hide` are dropped and directive lines removed before myst-nb parses a notebook. A lesson's `#| solution` cell
# (nbs/lessons/) is kept but collapsed, so that a reader tries the exercise first.
_DIRECTIVE = re.compile(r"^\s*#\|\s*(\S+)")

def _strip_nbdev(app, docname, source):
    if not str(app.env.doc2path(docname)).endswith(".ipynb"): return
    try: nb = json.loads(source[0])
    except ValueError: return          # let myst-nb report the broken notebook
    cells = []
    for cell in nb.get("cells", []):
        lines = cell.get("source", "")
        lines = lines.splitlines(keepends=True) if isinstance(lines, str) else list(lines)
        dirs = [m.group(1) for l in lines if (m := _DIRECTIVE.match(l))]
        if cell.get("cell_type") == "code" and "hide" in dirs: continue
        if cell.get("cell_type") == "code" and "solution" in dirs:   # a lesson's solution: shown collapsed ("Show code")
            tags = cell.setdefault("metadata", {}).setdefault("tags", [])
            if "hide-input" not in tags: tags.append("hide-input")
        cell["source"] = [l for l in lines if not _DIRECTIVE.match(l)]
        if cell.get("cell_type") == "code" and not "".join(cell["source"]).strip() and not cell.get("outputs"): continue
        cells.append(cell)
    nb["cells"] = cells
    source[0] = json.dumps(nb)

def _tour_when_it_exists(app, docname, source):
    "The home page lists nbs/000_tour first once it exists (an empty toctree glob is a warning Sphinx cannot mute)."
    if docname == root_doc and not (Path(app.srcdir)/"nbs"/"000_tour.ipynb").exists():
        source[0] = source[0].replace("/nbs/000_tour*\n", "")

def setup(app):
    app.connect("source-read", _strip_nbdev)
    app.connect("source-read", _tour_when_it_exists)
