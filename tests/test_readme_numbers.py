"README.md's numbers that runs made are generated (`augsbert readme`): the committed README must be what the command writes."
from augsbert.config import project_root
from augsbert.readme import MARK, BLOCKS, readme_blocks, rewrite, refresh_readme

def test_readme_is_current():
    text = (project_root()/'README.md').read_text(encoding='utf-8')
    new, changed = rewrite(text, readme_blocks())
    assert not changed, f"README.md is stale in blocks {changed}: run `.venv/bin/augsbert readme` and commit it"
    assert rewrite(new, readme_blocks()) == (new, [])   # idempotent
    assert {m[2] for m in MARK.finditer(text)} == set(BLOCKS)   # every block is in the README

def test_refresh_is_idempotent(tmp_path):
    readme = tmp_path/'README.md'
    readme.write_text((project_root()/'README.md').read_text(encoding='utf-8').replace(
        '<!-- augsbert:numbers:start stsb -->\n', '<!-- augsbert:numbers:start stsb -->\n| stale | 84.21 |\n'), encoding='utf-8')
    readme.chmod(0o644)
    assert refresh_readme(readme, check=True) == ['stsb'] and '84.21' in readme.read_text(encoding='utf-8')
    assert refresh_readme(readme) == ['stsb'] and '84.21' not in readme.read_text(encoding='utf-8')
    assert refresh_readme(readme) == [] and readme.stat().st_mode & 0o777 == 0o644
