"""The docs site (`make docs`: Sphinx + myst-nb + pydata-sphinx-theme, offline, notebooks not executed) builds.

Built into a temp folder (the repository is only read). Warnings (a missing image, an unknown output type) do not
fail it; an exception does (e.g. a notebook that is not valid JSON), and so does a toctree page that was not written.
"""
import json, re, subprocess, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

def test_docs_build(tmp_path):
    out = tmp_path/'html'
    r = subprocess.run([str(Path(sys.executable).parent/'sphinx-build'), '-b', 'html', '-q', '-c', 'docs',
                        '-d', str(tmp_path/'doctrees'), '.', str(out)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert (out/'index.html').exists()   # the redirect to docs/index.html
    pages = [p.relative_to(ROOT).with_suffix('.html') for pattern in
             ('nbs/*.ipynb', 'nbs/lessons/*.ipynb', 'nbs/experiments/*.ipynb', 'nbs/reports/*.ipynb', 'reports/*.md') for p in ROOT.glob(pattern)]
    assert pages
    for page in pages: assert (out/page).exists(), page
    # the toctree order: the tutorials (the tour, your own data), the docs home, the lessons, the library in file order,
    # experiments, reports
    home = (out/'docs'/'index.html').read_text(encoding='utf-8')
    links = [l for l in re.findall(r'href="\.\./([^"#]+\.html)"', home) if l.startswith(('nbs/', 'reports/'))]
    links = list(dict.fromkeys(links))
    tutorials = [t for t in ('000_tour', '001_own_data') if (ROOT/'nbs'/f'{t}.ipynb').exists()]
    lib = sorted(p.stem for p in ROOT.glob('nbs/[0-9]*.ipynb') if p.stem not in tutorials)
    lessons = sorted(p.stem for p in ROOT.glob('nbs/lessons/*.ipynb'))
    expected = [f'nbs/{t}.html' for t in tutorials] + ['nbs/index.html'] + [f'nbs/lessons/{s}.html' for s in lessons] \
        + [f'nbs/{s}.html' for s in lib]
    assert links[:len(expected)] == expected
    kind = lambda l: 'experiment' if l.startswith('nbs/experiments/') else 'report notebook' if l.startswith('nbs/reports/') else 'report'
    count = lambda pattern: len(list(ROOT.glob(pattern)))
    assert [kind(l) for l in links[len(expected):]] == ['experiment'] * count('nbs/experiments/*.ipynb') \
        + ['report notebook'] * count('nbs/reports/*.ipynb') + ['report'] * count('reports/*.md')
    # a lesson's solutions (`#| solution` cells) are on its page, collapsed: one <details> per solution
    for nb in ROOT.glob('nbs/lessons/*.ipynb'):
        n = sum(''.join(c['source']).startswith('#| solution') for c in json.loads(nb.read_text(encoding='utf-8'))['cells'])
        page = (out/nb.relative_to(ROOT).with_suffix('.html')).read_text(encoding='utf-8')
        assert page.count('<details class="admonition hide above-input">') == n, nb.name

def test_rendered_reports_carry_no_deprecation_warnings():
    "A committed report (reports/*.ipynb, a docs page) shows no Future/Deprecation warning: each is a call that a newer pandas or numpy will refuse."
    found = {}
    for p in sorted((ROOT/'reports').glob('*.ipynb')):
        text = ''.join(''.join(o.get('text', '')) for c in json.loads(p.read_text(encoding='utf-8'))['cells']
                       for o in c.get('outputs', []) if o.get('name') == 'stderr')
        if hits := sorted(set(re.findall(r'\b\w*(?:Future|Deprecation|Pandas\d)Warning\b', text))): found[p.name] = hits
    assert not found, f'warnings in rendered reports (fix the report notebook in nbs/reports/ and re-render): {found}'
