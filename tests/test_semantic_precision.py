"""Semantic-search sampling encodes at the protocol's prediction precision (`eval_precision`; issue 31, part 4:
`benchmarks/encode_backends.py` measured bf16 encoding faster than fp32 on a CPU with bf16 instructions, with nearly all
top-5 neighbours kept: reports/performance.md, Encoding backends). The silver set's cache key already names the precision (the gold SBERT's `be`)."""
from types import SimpleNamespace
import numpy as np
import pytest
import torch
import augsbert.methods.in_domain as in_domain
from augsbert.config import get_profile
from augsbert.protocol import protocol_from_profile
from augsbert.testing import toy_pairs


class Recorder:
    "A bi-encoder that records whether bf16 autocast was on when it encoded, and returns random unit vectors."
    def __init__(self): self.autocast = []
    def encode(self, sentences, **kw):
        self.autocast.append(torch.is_autocast_enabled('cpu') and torch.get_autocast_dtype('cpu') == torch.bfloat16)
        e = np.random.default_rng(0).normal(size=(len(sentences), 8)).astype(np.float32)
        return e / np.linalg.norm(e, axis=1, keepdims=True)


@pytest.mark.parametrize('precision', ['fp32', 'bf16'])
def test_semantic_search_encodes_at_the_prediction_precision(monkeypatch, tmp_path, precision):
    monkeypatch.setenv('AUGSBERT_CACHE', str(tmp_path))
    cfg = get_profile('smoke', bi_encoder='tiny-a', cross_encoder='tiny-b', student='static', eval_precision=precision)
    proto = protocol_from_profile(cfg, 'toy', ('augsbert', 'silver-labels'))
    model, pairs = Recorder(), toy_pairs(12)
    splits = SimpleNamespace(task='regression', dev=pairs.head(4), train=pairs, test=pairs.tail(4))
    monkeypatch.setattr(in_domain, 'get_teacher', lambda *a, **k: SimpleNamespace(predict=lambda df: np.full(len(df), 0.5)))
    monkeypatch.setattr(in_domain, 'get_bi_encoder_model', lambda *a, **k: model)
    silver = in_domain.get_silver('semantic', splits, pairs, proto, progress=False)
    assert len(silver) > 0 and model.autocast == [precision == 'bf16']
    assert not torch.is_autocast_enabled('cpu')                   # and off again afterwards
