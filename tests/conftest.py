"Shared pytest fixtures: a private reports folder, and the data mirror when the project has one."
import os
from pathlib import Path
import pytest

ROOT = Path(__file__).resolve().parents[1]
MIRROR = ROOT.parent/'shared'/'data'

# the shared data mirror beside the project, when nobody named one (set here, before the skip marks below are made)
if not os.environ.get('AUGSBERT_DATA_MIRROR') and MIRROR.is_dir():
    os.environ['AUGSBERT_DATA_MIRROR'] = str(MIRROR)

def has_mirror()->bool:
    p = os.environ.get('AUGSBERT_DATA_MIRROR')
    return bool(p) and Path(p).is_dir()

needs_data = pytest.mark.skipif(not has_mirror(), reason="real data not available: set AUGSBERT_DATA_MIRROR=/path/to/shared/data")

@pytest.fixture
def reports(tmp_path, monkeypatch):
    "A private reports folder, so tests never touch the committed reports/."
    monkeypatch.setenv('AUGSBERT_REPORTS', str(tmp_path/'reports')); monkeypatch.setenv('AUGSBERT_WORKSPACE', str(tmp_path/'workspace'))
    return tmp_path/'reports'

@pytest.fixture(scope='module')
def tiny(tmp_path_factory):
    "A tiny random BERT folder (MiniLM's tokenizer), one per test module."
    from augsbert.testing import make_tiny_bert
    return str(make_tiny_bert(tmp_path_factory.mktemp('models')/'tiny-bert'))

@pytest.fixture(scope='module')
def env(tmp_path_factory):
    "A private reports folder and cache for one test module (its runs share cached stages, never the repository's)."
    base = tmp_path_factory.mktemp('runs')
    mp = pytest.MonkeyPatch()
    mp.setenv('AUGSBERT_REPORTS', str(base/'reports')); mp.setenv('AUGSBERT_CACHE', str(base/'cache'))
    mp.setenv('AUGSBERT_WORKSPACE', str(base/'workspace'))
    yield base
    mp.undo()

def execute_in_process(nb, tmp, params:dict, progress:bool):
    """`augsbert.runs._papermill` without a kernel, for the tests: the notebook's code cells, with the parameters cell papermill
    injects, run one after another in this process, in a fresh namespace and the notebook's folder; each cell's printed output
    is kept and the executed notebook written to `tmp`; a failing cell raises papermill's `PapermillExecutionError`, so that
    `augsbert.runs._execute` keeps the notebook and words the error as it does for a kernel. A kernel's start and its imports
    (≈ 14 s of CPU for torch and sentence-transformers) would be most of a smoke run's cost. The environment, the working
    folder and the warning filters are restored afterwards, and open figures closed, so one run leaves nothing to the next.
    `in_kernel` runs a test's notebooks in a real kernel."""
    import contextlib, io, nbformat, warnings
    from papermill.exceptions import PapermillExecutionError
    from papermill.iorw import load_notebook_node
    from papermill.parameterize import parameterize_notebook
    book = parameterize_notebook(load_notebook_node(str(nb)), params, kernel_name='python3', language='python')
    def show(*objs, **kw): print(*objs)                            # IPython's `display`, as text
    ns, cwd, env, n = {'__name__': '__main__', 'display': show}, os.getcwd(), dict(os.environ), 0
    os.chdir(Path(nb).parent)                                      # papermill runs the kernel in the notebook's folder
    try:
        with warnings.catch_warnings():
            for i, cell in enumerate(book.cells):
                if cell.cell_type != 'code': continue
                n += 1; cell.execution_count, buf = n, io.StringIO()
                try:
                    with contextlib.redirect_stdout(buf): exec(compile(cell.source, f'<{Path(nb).stem} cell {n}>', 'exec'), ns)
                except Exception as e:
                    cell.outputs = [nbformat.v4.new_output('error', ename=type(e).__name__, evalue=str(e), traceback=[])]
                    raise PapermillExecutionError(i, n, cell.source, type(e).__name__, str(e), []) from None
                finally:
                    if buf.getvalue(): cell.outputs = [nbformat.v4.new_output('stream', name='stdout', text=buf.getvalue())] + list(cell.get('outputs', []))
    finally:
        os.chdir(cwd); os.environ.clear(); os.environ.update(env)
        import matplotlib.pyplot as plt; plt.close('all')
        nbformat.write(book, str(tmp))

@pytest.fixture(scope='session', autouse=True)
def _runs_in_process():
    "Every test's experiment and report runs execute in the test's process (`execute_in_process`) unless it asks for a kernel."
    mp = pytest.MonkeyPatch(); mp.setattr(augsbert.runs, '_papermill', execute_in_process)
    yield
    mp.undo()

def in_kernel(monkeypatch):
    "From here on in this test, `run_experiment` runs its notebook in a real kernel with papermill, as `augsbert run` does."
    monkeypatch.setattr(augsbert.runs, '_papermill', _KERNEL)

import augsbert.runs                            # noqa: E402
_KERNEL = augsbert.runs._papermill              # the real one, taken before the session fixture replaces it
