"""`label_backend` reaches every cache entry it changes (issue 31): the silver set of a cross-encoder teacher, the
teacher's scores and domain adaptation's silver target name the backend; a bi-encoder teacher's silver set does not
(it always encodes with PyTorch), and the teacher model itself does not (the same model, run another way)."""
from types import SimpleNamespace
import pandas as pd
import augsbert.methods.in_domain as in_domain
from augsbert.config import get_profile
from augsbert.protocol import protocol_from_profile
from augsbert.teachers import teacher_key
from augsbert.testing import toy_pairs


def protos(**kw):
    cfg = get_profile('smoke', bi_encoder='tiny-a', cross_encoder='tiny-b', student='static', **kw)
    return {b: protocol_from_profile(dict(cfg, label_backend=b), 'toy', ('augsbert', 'silver-labels')) for b in ('torch', 'onnx', 'onnx-int8')}


def silver_keys(monkeypatch, proto_by_backend):
    "The silver cache key get_silver would use, per backend (nothing computed: cached_json is intercepted)."
    seen = {}
    pairs = toy_pairs(12)
    splits = SimpleNamespace(task='regression', dev=pairs.head(4), train=pairs, test=pairs.tail(4))
    for b, p in proto_by_backend.items():
        monkeypatch.setattr(in_domain, 'cached_json', lambda stage, key, compute, b=b: seen.setdefault(b, key) and
                            dict(sentence1=[], sentence2=[], score=[]))
        assert isinstance(in_domain.get_silver('bm25', splits, pairs, p, progress=False), pd.DataFrame)
    return seen


def test_cross_encoder_silver_keys_name_the_backend(monkeypatch):
    ps = protos()
    keys = silver_keys(monkeypatch, ps)
    assert len(set(keys.values())) == 3
    pairs = toy_pairs(12)
    assert len({tuple(teacher_key(pairs, p)) for p in ps.values()}) == 1      # the same teacher model


def test_bi_encoder_teacher_silver_keys_do_not(monkeypatch):
    keys = silver_keys(monkeypatch, protos(teacher='bi-encoder', teacher_model='tiny-c'))
    assert len(set(keys.values())) == 1
    assert not any(in_domain.labels_with_backend(p) for p in protos(teacher='bi-encoder', teacher_model='tiny-c').values())
