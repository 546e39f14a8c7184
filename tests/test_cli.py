"The CLI explains itself: the help lists the experiments, methods, students, teachers and parameters, read from their sources."
import contextlib, io, os, subprocess, sys
import papermill as pm
import pytest
from augsbert.cli import main, experiments, registries

def _cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try: code = main(list(argv))
        except SystemExit as e: code = e.code   # argparse's --help
    return code, out.getvalue(), err.getvalue()

EXPERIMENTS = sorted(experiments())

def test_help_lists_experiments_methods_students_teachers():
    from augsbert.methods.in_domain import METHODS
    from augsbert.teachers import TEACHERS
    from augsbert.students import STUDENTS
    for argv in (['--help'], ['run', '--help']):
        code, out, _ = _cli(*argv)
        assert code == 0
        for name in [*EXPERIMENTS, *METHODS, *STUDENTS, *TEACHERS]: assert name in out, (argv, name)
    assert registries() == registries(source=False)   # the fast source reading agrees with the live registries

def test_run_help_lists_every_parameter():
    _, out, _ = _cli('run', '--help')
    for e in EXPERIMENTS:
        for name, p in pm.inspect_notebook(str(experiments()[e][0])).items():
            assert f" {name} " in out, (e, name)
            if p['help']: assert p['help'] in out, (e, name, p['help'])

@pytest.mark.parametrize('experiment', EXPERIMENTS)
def test_list_params(experiment):
    code, out, err = _cli('run', experiment, '--list-params')
    assert code == 0, err
    lines = out.splitlines()
    for name, p in pm.inspect_notebook(str(experiments()[experiment][0])).items():   # papermill's reading of the cell
        line = next((l for l in lines if l.split()[:1] == [name]), None)
        assert line is not None, (experiment, name)
        if p['help']: assert line.rstrip().endswith(p['help']), (experiment, name, line, p['help'])
    assert _cli('experiments', experiment)[1] == out

def test_list_params_unknown_experiment():
    code, out, err = _cli('run', 'in_domian', '--list-params')
    assert code == 2 and out == ''
    assert "unknown experiment 'in_domian' (did you mean 'in_domain'?)" in err and 'Traceback' not in err

def test_list_and_missing_experiment():
    code, out, _ = _cli('run', '--list')
    assert code == 0 and all(e in out for e in EXPERIMENTS) and _cli('experiments')[1] == out
    code, _, err = _cli('run')
    assert code == 2 and 'needs an EXPERIMENT' in err

def test_help_imports_no_torch():
    code = ("import sys; from augsbert.cli import main\n"
            "try: main(['run', '--help'])\nexcept SystemExit: pass\n"
            "assert 'torch' not in sys.modules and 'pandas' not in sys.modules, 'help imported a heavy module'")
    subprocess.run([sys.executable, '-c', code], check=True, capture_output=True, timeout=60)

def test_run_in_process_leaves_numba_its_threads():
    """`augsbert run` called in a process whose numba threads already run (a notebook, a test worker) leaves that process's
    NUMBA_NUM_THREADS as it was: numba's next compilation re-reads it and refuses another count (make test failed so)."""
    code = ("import os, numba, numpy as np\n"
            "@numba.njit(parallel=True)\n"
            "def f(x):\n    s = 0.\n    for i in numba.prange(len(x)): s += x[i]\n    return s\n"
            "f(np.ones(8))\n"                                         # numba's threads run, one per core
            "from augsbert.cli import main\n"
            "assert main(['run', 'datasets', '-p', 'sedes=3']) == 2\n"   # an unknown parameter: the run fails
            "assert 'NUMBA_NUM_THREADS' not in os.environ, os.environ['NUMBA_NUM_THREADS']\n"
            "g = numba.njit(lambda x: x + 1)\nassert g(1) == 2\n")   # a new compilation
    env = {k: v for k, v in os.environ.items() if k != 'NUMBA_NUM_THREADS'}
    r = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, timeout=300, env=dict(env, OMP_NUM_THREADS='1'))
    assert r.returncode == 0, r.stderr[-2000:]

def test_run_gives_numba_the_threads_torch_has(monkeypatch):
    "`augsbert run` sets NUMBA_NUM_THREADS from OMP_NUM_THREADS before the run starts (numba would resize torch's pool)."
    import os, augsbert.runs
    seen = {}
    monkeypatch.setenv('OMP_NUM_THREADS', '1'); monkeypatch.setenv('NUMBA_NUM_THREADS', '')   # unset; restored afterwards
    monkeypatch.setattr(augsbert.runs, 'run_experiment', lambda *a, **k: seen.setdefault('numba', os.environ['NUMBA_NUM_THREADS']))
    assert _cli('run', 'datasets', '--profile', 'smoke')[0] in (0, None)
    assert seen == {'numba': '1'}
