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
