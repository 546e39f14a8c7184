"""The running-text corpus `web` from Debian's package pool (a 3.9 MB download, sha256-checked), read with pysword.
Slow (network + about a minute of parsing): `make test-slow`."""
import pytest
from augsbert.loaders.corpus import load_corpus

@pytest.mark.slow
def test_world_english_bible(tmp_path, monkeypatch):
    monkeypatch.setenv('AUGSBERT_CACHE', str(tmp_path))
    monkeypatch.delenv('AUGSBERT_OFFLINE', raising=False)
    c = load_corpus('web')
    assert len(c.documents) == 1388 and len(c.sentences()) == 49348
    assert c.titles[0] == 'Genesis 1' and c.documents[0][0] == 'In the beginning, God created the heavens and the earth.'
    assert not any('<' in s or 'strong:' in s for s in c.sentences()[:5000])          # no markup left
