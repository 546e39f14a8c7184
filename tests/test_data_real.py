"""Every registered data set, loaded from the real data mirror, has the split sizes we document.

Needs the project's data mirror: `AUGSBERT_DATA_MIRROR=/path/to/shared/data pytest tests/test_data_real.py`.
Runs offline with an empty temporary cache, so it reads (and checksums) the mirror only. About 5 s.
"""
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from augsbert.data import COLUMNS, DATASETS, load_dataset

_MIRROR = [Path(p).expanduser() for p in os.environ.get('AUGSBERT_DATA_MIRROR', '').split(os.pathsep) if p]
pytestmark = pytest.mark.skipif(
    not _MIRROR or not all(p.is_dir() for p in _MIRROR),
    reason='needs the real data: set AUGSBERT_DATA_MIRROR to the shared data folder (e.g. ../shared/data)'
           + (f'; {os.environ["AUGSBERT_DATA_MIRROR"]!r} is not a folder' if os.environ.get('AUGSBERT_DATA_MIRROR') else ''))

EXPECTED = {  # (train, dev, test) with SPLIT_SEED = 42; Table 1 of the paper where it has the data set
    'stsb': (5749, 1500, 1379),
    'sts-es': (1400, 220, 250),
    'bws-cross-topic': (2125, 425, 850),
    'bws-in-topic': (2471, 478, 451),
    'quora-qp': (10000, 3000, 3000),
    'mrpc': (4340, 731, 730),
    'sick-r': (4500, 500, 4927),
    'sts12': (0, 0, 3108),
    'sts13': (0, 0, 1500),
    'sts14': (0, 0, 3750),
    'sts15': (0, 0, 3000),
    'sts16': (0, 0, 1186),
    'ukp-aspect': (2180, 514, 901),   # fold 0
}


@pytest.fixture
def mirror_only(monkeypatch, tmp_path):
    "Read the mirror only: offline, with an empty cache."
    monkeypatch.setenv('AUGSBERT_OFFLINE', '1')
    monkeypatch.setenv('AUGSBERT_CACHE', str(tmp_path))


NEEDS_DATA = ('askubuntu', 'shah-askubuntu', 'shah-superuser', 'shah-sprint', 'shah-apple', 'shah-android', 'shah-quora')  # not mirrored

def test_every_registered_data_set_is_covered():
    assert set(DATASETS) == set(EXPECTED) | set(NEEDS_DATA)

@pytest.mark.parametrize('name', NEEDS_DATA)
def test_the_domain_adaptation_releases_say_what_to_download(name, mirror_only):
    from augsbert.config import OfflineError
    with pytest.raises(OfflineError, match='needs the data: .*Fix: .*(drive.google.com|raw.githubusercontent.com/taolei87/askubuntu).*-p data_dir='):
        load_dataset(name)


@pytest.mark.parametrize('name', sorted(EXPECTED))
def test_sizes_and_format(name, mirror_only):
    s = load_dataset(name)
    assert tuple(s.sizes().values()) == EXPECTED[name]
    if DATASETS[name].paper_sizes: assert tuple(s.sizes().values()) == DATASETS[name].paper_sizes
    for df in (s.train, s.dev, s.test):
        assert tuple(df.columns[:3]) == COLUMNS
        assert df['score'].dtype == np.float64 and df['score'].between(0, 1).all()
        assert isinstance(df.index, pd.RangeIndex) and df.index.start == 0
        if s.task == 'classification': assert df['score'].isin([0.0, 1.0]).all()


def test_quora_balance(mirror_only):
    s = load_dataset('quora-qp')
    assert [int(d['score'].sum()) for d in (s.train, s.dev, s.test)] == [3692, 1500, 1500]


@pytest.mark.parametrize('fold,sizes', [(0, (2180, 514, 901)), (1, (2180, 514, 901)), (2, (2196, 494, 905)), (3, (2191, 516, 888))])
def test_ukp_folds(fold, sizes, mirror_only):
    assert tuple(load_dataset('ukp-aspect', fold=fold).sizes().values()) == sizes
