"""Hostile parameters, names and folders through `augsbert run` (issue 27, defects 2 and 4): each is refused with one line
that names the `-p` parameter (or the name, or the folder) and what is valid, before any data loads or model trains,
and leaves no run folder behind. (Degenerate data files: tests/test_hostile_data.py; a GPU profile on a CPU machine:
tests/test_paper_path.py.)"""
import fcntl, os
from pathlib import Path
import pytest
from augsbert.cli import main

# (experiment, extra CLI args, phrases the one-line message must hold)
CASES = [
    ('in_domain', ['-p', 'seeds=0'], ['-p seeds=0', 'at least 1']),
    ('in_domain', ['-p', 'seeds=-1'], ['-p seeds=-1', 'at least 1']),
    ('in_domain', ['-p', 'max_train_pairs=-5'], ['-p max_train_pairs=-5', 'at least 0 (0 means all)']),
    ('in_domain', ['-p', 'top_k=0'], ['-p top_k=0', 'at least 1']),
    ('in_domain', ['-p', 'top_k=-3'], ['-p top_k=-3', 'at least 1']),
    ('in_domain', ['-p', 'lr=0'], ['-p lr=0', 'above 0 and at most 1']),
    ('in_domain', ['-p', 'lr=-1e-5'], ['-p lr=-1e-05', 'above 0']),
    ('in_domain', ['-p', 'lr=nan'], ['-p lr=nan', 'above 0']),
    ('in_domain', ['-p', 'lr=inf'], ['-p lr=inf', 'at most 1']),
    ('in_domain', ['-p', 'epochs=0'], ['-p epochs=0', 'at least 1']),
    ('in_domain', ['-p', 'ce_epochs=0'], ['-p ce_epochs=0', 'at least 1']),
    ('in_domain', ['-p', 'ce_lr=0'], ['-p ce_lr=0', 'above 0']),
    ('in_domain', ['-p', 'rs_ratio=0'], ['-p rs_ratio=0', 'above 0']),
    ('in_domain', ['-p', 'kde_pool_ratio=-1'], ['-p kde_pool_ratio=-1', 'above 0']),
    ('in_domain', ['-p', 'batch_size=0'], ["unknown parameter 'batch_size'"]),          # not a parameter of in_domain
    ('in_domain', ['-p', 'ce_warmup_ratio=1'], ['-p ce_warmup_ratio=1', 'below 1']),
    ('in_domain', ['-p', 'nlpaug_p=2'], ['-p nlpaug_p=2', 'at most 1']),
    ('in_domain', ['-p', 'repeats=0'], ['-p repeats=0', 'at least 1']),
    ('in_domain', ['-p', 'static_epochs=0'], ['-p static_epochs=0', 'at least 1']),
    ('in_domain', ['-p', 'cut_layers=0'], ['-p cut_layers=0', 'at least 1']),
    ('in_domain', ['-p', 'static_lr=-0.1'], ['-p static_lr=-0.1', 'above 0']),
    ('in_domain', ['-p', 'seeds=three'], ['-p seeds=three', 'not a valid int']),
    ('in_domain', ['-p', 'seeds=2.5'], ['-p seeds=2.5', 'not a valid int']),
    ('in_domain', ['-p', 'seed_optimisation=maybe'], ['not a valid bool']),
    ('in_domain', ['-p', 'sedes=3'], ["unknown parameter 'sedes'", "did you mean 'seeds'"]),
    ('in_domain', ['-p', 'seeds'], ["'seeds' is not KEY=VALUE"]),
    ('in_domian', [], ["unknown experiment 'in_domian'", "did you mean 'in_domain'"]),
    ('in_domain', ['--profile', 'gpu'], ["unknown profile 'gpu'"]),
    ('in_domain', ['--name', '../../../x'], ["--name '../../../x' is not a safe run name"]),
    ('in_domain', ['--name', 'a/b'], ["is not a safe run name"]),
    ('in_domain', ['--name', '.hidden'], ["is not a safe run name"]),
    ('in_domain', ['--name', ''], ["is not a safe run name"]),
    ('in_domain', ['--name', 'x' * 151], ["is not a safe run name"]),
    ('domain_adaptation', ['-p', 'max_target_pairs=-1'], ['-p max_target_pairs=-1', 'at least 0']),
    ('domain_adaptation', ['-p', 'seeds=0'], ['-p seeds=0']),
    ('augcse', ['-p', 'augcse_batch=1'], ['-p augcse_batch=1', 'at least 2']),
    ('augcse', ['-p', 'augcse_temperature=0'], ['-p augcse_temperature=0', 'above 0']),
    ('augcse', ['-p', 'augcse_epochs=0'], ['-p augcse_epochs=0', 'at least 1']),
    ('contexts', ['-p', 'ctx_size=0'], ['-p ctx_size=0', 'at least 1']),
    ('contexts', ['-p', 'ctx_eval_pairs=-1'], ['-p ctx_eval_pairs=-1', 'at least 0 (0 means all)']),
    ('arguebert_pretrain', ['-p', 'ab_steps=0'], ['-p ab_steps=0', 'at least 1']),
    ('arguebert_pretrain', ['-p', 'ab_lr=2'], ['-p ab_lr=2', 'at most 1']),
    ('arguebert', ['-p', 'abft_epochs=0'], ['-p abft_epochs=0', 'at least 1']),
    ('arguebert', ['-p', 'abft_max_train_pairs=-2'], ['-p abft_max_train_pairs=-2']),
]

@pytest.fixture
def folders(tmp_path, monkeypatch):
    monkeypatch.setenv('AUGSBERT_REPORTS', str(tmp_path/'reports'))
    monkeypatch.setenv('AUGSBERT_CACHE', str(tmp_path/'cache'))
    monkeypatch.setenv('AUGSBERT_DATA_MIRROR', '/nonexistent')    # loading any data would fail: so nothing may load
    monkeypatch.setenv('AUGSBERT_OFFLINE', '1')
    return tmp_path

def _refused(capsys, experiment, args, phrases, rc=2):
    code = main(['run', experiment, '--profile', 'smoke', *args])
    err = capsys.readouterr().err
    assert code == rc, err
    assert 'Traceback' not in err and err.startswith('augsbert: error: '), err
    for p in phrases: assert p in err, (p, err)
    return err

@pytest.mark.parametrize('experiment,args,phrases', CASES, ids=[' '.join([e, *a])[:60] for e, a, _ in CASES])
def test_refused_before_anything_runs(folders, capsys, monkeypatch, experiment, args, phrases):
    import papermill
    monkeypatch.setattr(papermill, 'execute_notebook', lambda *a, **k: pytest.fail('the notebook was started'))
    _refused(capsys, experiment, args, phrases)
    runs = folders/'reports'/'runs'
    assert not runs.exists() or not any(runs.rglob('*')), list(runs.rglob('*'))     # no folder left behind
    assert not (folders.parent/'x').exists()

def test_every_numeric_parameter_is_range_checked():
    from augsbert.config import BOUNDS, PROFILE_KEYS
    assert set(BOUNDS) == {k for k, t in PROFILE_KEYS.items() if t in (int, float)}

def test_a_reports_folder_that_cannot_be_written(folders, capsys, monkeypatch):
    (folders/'afile').write_text('')
    monkeypatch.setenv('AUGSBERT_REPORTS', str(folders/'afile'))       # a file where the folder should be
    _refused(capsys, 'in_domain', [], ['cannot write runs into', 'AUGSBERT_REPORTS'])

def test_a_read_only_reports_folder(folders, capsys, monkeypatch):
    ro = folders/'ro'; ro.mkdir(); ro.chmod(0o555)
    monkeypatch.setenv('AUGSBERT_REPORTS', str(ro))
    if os.geteuid() == 0:          # root may write into a 0555 folder: ask os.access as a user would be answered
        real = os.access
        monkeypatch.setattr(os, 'access', lambda p, m, **kw: False if Path(p) == ro/'runs' or Path(p) == ro else real(p, m, **kw))
    try: _refused(capsys, 'in_domain', [], ['cannot write runs into', 'read-only'])
    finally: ro.chmod(0o755)

def test_an_os_error_is_one_line(folders, capsys, monkeypatch):
    import augsbert.cli as cli
    def boom(args): raise PermissionError(13, 'Permission denied', '/some/folder')
    monkeypatch.setattr(cli, 'cmd_profiles', boom)                     # main() builds its parser after this
    assert main(['profiles']) == 1
    err = capsys.readouterr().err
    assert err.startswith('augsbert: error: Permission denied (/some/folder).') and 'Traceback' not in err

def test_a_second_run_of_the_same_name_stops_at_once(folders, capsys, monkeypatch):
    import papermill
    monkeypatch.setattr(papermill, 'execute_notebook', lambda *a, **k: pytest.fail('the notebook was started'))
    runs = folders/'reports'/'runs'/'in_domain'; runs.mkdir(parents=True)
    with open(runs/'.smoke_seeds-1.lock', 'w') as f:                       # what a first, still running run holds
        fcntl.flock(f, fcntl.LOCK_EX); f.write('pid 4242 on node7, started 2026-11-25 10:00\n'); f.flush()
        _refused(capsys, 'in_domain', ['-p', 'seeds=1'], ['is already being made (pid 4242 on node7', 'another --name'])
    assert not (runs/'smoke_seeds-1').exists()

def test_a_failed_run_leaves_no_folder_and_keeps_its_notebook_in_the_cache(folders, capsys):
    "A run that starts and fails in its first cells (an unknown method): no run folder; the notebook is kept in the cache."
    err = _refused(capsys, 'in_domain', ['-p', 'method=augsbert-bm52'], ["unknown method 'augsbert-bm52'"])
    assert not any((folders/'reports'/'runs').rglob('*.ipynb'))
    kept = Path(err.split('The executed notebook is at ')[1].strip().rstrip('.'))
    assert kept.exists() and str(kept).startswith(str(folders/'cache'))

def test_run_files_follow_the_umask(folders):
    from augsbert.runs import write_json
    old = os.umask(0o002)
    try:
        p = write_json(folders/'m.json', {'a': 1})
        assert p.stat().st_mode & 0o777 == 0o664
    finally: os.umask(old)

def test_progress_bars_reach_the_terminal(folders, capfd):
    "The notebook's own bars (tqdm on stderr in the kernel) stream to the caller's stderr; the kernel's TCP warning does not."
    import nbformat
    from augsbert.runs import run_experiment
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("profile = 'smoke'", metadata={'tags': ['parameters']}),
                nbformat.v4.new_code_cell("from tqdm.auto import tqdm\nfor _ in tqdm(range(3), desc='training steps'): pass")]
    nb.metadata['kernelspec'] = {'name': 'python3', 'display_name': 'Python 3', 'language': 'python'}
    path = folders/'bars.ipynb'; nbformat.write(nb, path)
    run_experiment(str(path), profile='smoke', progress=True)
    err = capfd.readouterr().err                      # file descriptor 2: what the kernel process itself prints too
    assert 'training steps: 100%' in err and '3/3' in err
    assert 'without encryption' not in err and 'IProgress' not in err
