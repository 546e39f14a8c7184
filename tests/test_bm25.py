"""Parity of the exact BM25 search (`augsbert.bm25`, behind `augsbert.sampling.bm25_top_k`) with rank_bm25's BM25Okapi
on real sentences: the same neighbours, the same scores (float equality), the same tie order."""
import numpy as np
import pytest
from conftest import needs_data
from augsbert.data import load_dataset
from augsbert.sampling import bm25_top_k, unique_sentences

pytestmark = needs_data

def _parity(sentences, k):
    i_f, s_f = bm25_top_k(sentences, top_k=k, fast=True, progress=False)
    i_r, s_r = bm25_top_k(sentences, top_k=k, fast=False, progress=False)
    assert np.array_equal(i_f, i_r), f"{int((i_f != i_r).any(1).sum())} of {len(sentences)} sentences have other neighbours"
    assert np.array_equal(s_f, s_r, equal_nan=True)
    return i_f

@pytest.mark.parametrize('dataset, n, k', [('stsb', 1500, 5), ('quora-qp', 1500, 3), ('bws-cross-topic', 1000, 7)])
def test_parity_on_real_sentences(dataset, n, k):
    "A sample of each kind of text (captions and news, questions, arguments): rank_bm25's top k, exactly."
    idx = _parity(unique_sentences(load_dataset(dataset).train)[:n], k)
    assert (idx >= 0).mean() > 0.9                                    # real neighbours, not an empty agreement

@pytest.mark.slow
def test_parity_on_all_stsb_training_sentences():
    "All 10,566 unique STSb training sentences, top 5 (rank_bm25 takes about 2 minutes)."
    _parity(unique_sentences(load_dataset('stsb').train), 5)
