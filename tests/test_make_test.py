"""`make test` (what CI runs) keeps its temporary files in one folder: removed when everything passed, kept when not."""
import os, shutil, subprocess
import pytest
from conftest import ROOT

pytestmark = pytest.mark.skipif(shutil.which('make') is None, reason='needs make')

def _make_test(tmp_path, pytest_rc:int):
    "The `test` recipe alone (-o: its prerequisites taken as done) with stand-ins for nbdev-test and python that write a temporary file."
    bin_ = tmp_path/'bin'; bin_.mkdir()
    (bin_/'nbdev-test').write_text('#!/bin/sh\necho notebook > "$TMPDIR/nb.txt"\n')
    (bin_/'python').write_text(f'#!/bin/sh\necho "$TMPDIR" > "$TMPDIR/where.txt"\nexit {pytest_rc}\n')
    for f in bin_.iterdir(): f.chmod(0o755)
    base = tmp_path/'tmp'; base.mkdir()
    r = subprocess.run(['make', '-s', '-o', 'install', '-o', 'lint', '-o', 'check-export', 'test', f'BIN={bin_}'], cwd=ROOT,
                       capture_output=True, text=True, env={**os.environ, 'TMPDIR': str(base)})
    return r, list(base.iterdir())

def test_a_passing_run_leaves_no_temporary_files(tmp_path):
    r, left = _make_test(tmp_path, 0)
    assert r.returncode == 0, r.stderr
    assert left == [] and 'temporary files: ' + str(tmp_path/'tmp'/'augsbert-test.') in r.stdout

def test_a_failing_run_keeps_them_and_says_where(tmp_path):
    r, left = _make_test(tmp_path, 3)
    assert r.returncode != 0 and len(left) == 1 and left[0].name.startswith('augsbert-test.')
    assert {p.name for p in left[0].iterdir()} == {'nb.txt', 'where.txt'} and (left[0]/'where.txt').read_text().strip() == str(left[0])
    assert f'its temporary files are kept in {left[0]}' in r.stdout
