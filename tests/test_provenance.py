"""Provenance: a run's `git_dirty` flag means changed code or inputs, not the reports the runs themselves rewrite."""
import subprocess
import augsbert.runs as runs

def test_git_dirty_ignores_reports(tmp_path, monkeypatch):
    def git(*a): subprocess.run(['git', *a], cwd=tmp_path, check=True, capture_output=True)
    git('init', '-q')
    (tmp_path/'reports').mkdir(); (tmp_path/'reports'/'table.md').write_text('old')
    (tmp_path/'code.py').write_text('x = 1')
    git('add', '.'); git('-c', 'user.email=ci@example.org', '-c', 'user.name=ci', 'commit', '-qm', 'init')
    monkeypatch.setattr(runs, 'project_root', lambda: tmp_path)
    assert runs.environment_info()['git_dirty'] is False
    (tmp_path/'reports'/'table.md').write_text('rewritten by a run')
    assert runs.environment_info()['git_dirty'] is False
    (tmp_path/'code.py').write_text('x = 2')
    assert runs.environment_info()['git_dirty'] is True

# ---- the committed runs: each has provenance with its commit; none is dirty unless allow-listed (a list that only shrinks)
import json, re, shutil
from pathlib import Path
import pytest

ROOT = Path(__file__).resolve().parents[1]
KNOWN = ROOT/'tests'/'dirty_runs_known.txt'

def committed_run_dirs()->list[str]:
    "Run folders `reports/runs/<experiment>/<name>` with a file tracked by git (skip when this is not a git checkout)."
    if shutil.which('git') is None or not (ROOT/'.git').exists(): pytest.skip('not a git checkout')
    out = subprocess.run(['git', 'ls-files', '-z', '--', 'reports/runs/'], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    dirs = sorted({'/'.join(p.split('/')[:4]) for p in out.split('\0') if p.count('/') >= 4})
    if not dirs: pytest.skip('no committed runs')
    return dirs

def provenance(d:str)->dict:
    p = ROOT/d/'provenance.json'
    return json.loads(p.read_text(encoding='utf-8')) if p.exists() else {}

def dirty(d:str)->bool: return bool((provenance(d).get('environment') or {}).get('git_dirty'))

def known_dirty()->list[str]:
    return [l.strip().rstrip('/') for l in KNOWN.read_text(encoding='utf-8').splitlines() if l.strip() and not l.lstrip().startswith('#')]

def test_committed_runs_have_provenance():
    "Every committed run has a tracked provenance.json naming the git commit it was made from."
    tracked = set(subprocess.run(['git', 'ls-files', '--', 'reports/runs/*/*/provenance.json'], cwd=ROOT, capture_output=True,
                                 text=True, check=True).stdout.split())
    bad = [d for d in committed_run_dirs() if f'{d}/provenance.json' not in tracked
           or not re.fullmatch(r'[0-9a-f]{40}', str((provenance(d).get('environment') or {}).get('git_commit')))]
    assert not bad, f"committed runs without a tracked provenance.json recording environment.git_commit: {bad}"

def test_no_new_dirty_runs():
    "A committed run made from uncommitted code (`git_dirty`) fails unless it is one of the known ones (tests/dirty_runs_known.txt)."
    new = sorted(set(d for d in committed_run_dirs() if dirty(d)) - set(known_dirty()))
    assert not new, ("runs made from uncommitted code (provenance.json: environment.git_dirty = true) — commit the code first, "
                     f"then re-make them with `augsbert run …` (the allow-list {KNOWN.name} may only shrink): {new}")

def test_dirty_allow_list_only_shrinks():
    "Every allow-listed run is still committed and still dirty: a re-made (clean) or deleted run must leave the list."
    listed, runs = known_dirty(), set(committed_run_dirs())
    assert len(listed) == len(set(listed)), 'duplicate lines in tests/dirty_runs_known.txt'
    stale = [d for d in listed if d not in runs or not dirty(d)]
    assert not stale, f"delete these lines from {KNOWN.name} (the run is gone, or was re-made from a committed tree): {stale}"


def test_a_resumed_run_is_timed_over_its_attempts(tmp_path, monkeypatch):
    "run_experiment: an attempt killed after 0.2 s, then one that finishes: provenance.json's wall_seconds counts both."
    import time
    import augsbert.runs as R
    monkeypatch.setenv('AUGSBERT_REPORTS', str(tmp_path/'reports')); monkeypatch.setenv('AUGSBERT_CACHE', str(tmp_path/'cache'))
    calls = []
    def fake_execute(nb, out, params, progress, what):
        calls.append(out)
        if len(calls) == 1: time.sleep(0.2); raise KeyboardInterrupt          # the first attempt is killed
        R.write_json(out.parent/'provenance.json', dict(wall_seconds=1.0))   # the notebook's own clock: this attempt only
        out.write_text('{}')
    monkeypatch.setattr(R, '_execute', fake_execute)
    with pytest.raises(KeyboardInterrupt): R.run_experiment('datasets', profile='smoke', run_name='timed', progress=False)
    out = R.run_experiment('datasets', profile='smoke', run_name='timed', progress=False)
    prov = R.read_json(out/'provenance.json')
    assert len(prov['attempts_seconds']) == 2 and prov['attempts_seconds'][1] == 1.0 and 0.2 <= prov['attempts_seconds'][0] < 5, prov
    assert prov['wall_seconds'] == round(sum(prov['attempts_seconds']), 1)
    assert not any((tmp_path/'cache'/'clocks').glob('*.json'))                 # the finished run's clock is gone
