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
