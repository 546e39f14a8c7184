"""The silver pools on the real data: `sts` adds STS12-16 and SICK-R text but never a sentence of the data set's own dev or
test split (STS-B was drawn from STS12-16, so leaving them in would pair test sentences), and the sample is seeded."""
from conftest import needs_data
from augsbert.data import load_dataset, norm_text
from augsbert.methods.in_domain import silver_pool_text, pool_key

pytestmark = needs_data


def test_sts_pool_holds_no_dev_or_test_sentence():
    sp = load_dataset('stsb')
    gold = sp.train.iloc[:500]
    pool = silver_pool_text(sp, 'sts', gold)
    train = silver_pool_text(sp, 'train', gold)
    held = set(norm_text(sp.sentences(('dev', 'test'))))
    assert len(pool) > 2 * len(train) and not held & set(norm_text(pool))
    assert not set(pool_key(sp.sentences(('dev', 'test')))) & set(pool_key(pool))   # nor one that differs only in punctuation
    assert not (set(gold['sentence1']) | set(gold['sentence2'])) & set(pool)
    raw = [s for n in ('sts12', 'sts13', 'sts14', 'sts15', 'sts16') for s in load_dataset(n).sentences()]
    assert held & set(norm_text(raw))                     # the exclusion matters: STS12-16 do hold STS-B's test sentences
    sample = silver_pool_text(sp, 'sts', gold, max_sentences=1000)
    assert len(sample) == 1000 and sample == silver_pool_text(sp, 'sts', gold, max_sentences=1000) and set(sample) <= set(pool)
