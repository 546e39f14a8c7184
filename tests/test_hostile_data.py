"""Degenerate user data (issue 27, defect 3): each hostile file or silver set is one clear error (or a recorded warning)
that names the file and the fix, raised before any model trains — never a run that reports numbers."""
from pathlib import Path
import pandas as pd
import pytest
from augsbert.config import AugsbertError, DataError
from augsbert.data import load_dataset, DatasetInfo, PairSplits

HEADER = 'sentence1\tsentence2\tscore\n'


def _file(tmp_path, name, text=None, data:bytes|None=None)->Path:
    f = tmp_path/name
    f.write_bytes(data if data is not None else text.encode())
    return f

def _rows(n, score=lambda i: i % 6 / 5)->str:
    return ''.join(f"sentence number {i}\tanother sentence {i}\t{score(i)}\n" for i in range(n))

def _fails(what, *phrases, **options)->str:
    "The message of the `DataError` that loading the `custom` data set with `options` raises; it names `what` and `phrases`."
    with pytest.raises(DataError) as e: load_dataset('custom', **options)
    msg = str(e.value)
    for p in (str(what), *phrases): assert p in msg, (p, msg)
    assert 'Fix:' in msg, msg
    return msg


# --- one file, split 80/10/10 ------------------------------------------------------------------------------------------

def test_sixty_copies_of_one_pair(tmp_path):
    f = _file(tmp_path, 'same.tsv', HEADER + 'A man plays a guitar.\tA person plays music.\t0.8\n' * 60)
    _fails(f, '59 of its 60 pairs repeat an earlier pair', 'only 1 distinct pair', 'Too few distinct pairs', path=f)

def test_one_row_is_too_few_to_split(tmp_path):
    f = _file(tmp_path, 'one.tsv', HEADER + 'a cat\ta dog\t0.5\n')
    _fails(f, 'the file has 1 distinct pair, too few to split 80/10/10', 'at least 15 distinct pairs', path=f)

def test_empty_file(tmp_path):
    f = _file(tmp_path, 'empty.tsv', '')
    _fails(f, 'the file is empty (0 bytes)', 'write a header line', path=f)
    b = _file(tmp_path, 'blank.csv', '\n  \n')
    _fails(b, 'the file is empty (4 bytes, blank lines only)', path=b)

def test_header_only(tmp_path):
    f = _file(tmp_path, 'header.tsv', HEADER)
    _fails(f, 'has a header line (sentence1, sentence2, score) but no pairs', path=f)

def test_latin1_byte_is_not_utf8(tmp_path):
    f = _file(tmp_path, 'latin.tsv', data=(HEADER + _rows(20) + 'café au lait\ta coffee\t0.5\n').encode('latin-1'))
    msg = _fails(f, 'the file is not UTF-8 text: line 22, character 4 is the byte 0xe9', 'iconv -f latin1 -t utf-8', path=f)
    assert 'sep=' not in msg

def test_some_duplicates_are_dropped_with_a_warning(tmp_path):
    text = HEADER + _rows(30) + 'SENTENCE number 3\tanother  sentence 3\t0.2\n' + 'another sentence 4\tsentence number 4\t0.8\n'
    f = _file(tmp_path, 'dups.tsv', text)
    with pytest.warns(UserWarning, match=r'dropped 2 rows \(line 32, line 33\) repeating an earlier pair.*1 of them had a different score'):
        d = load_dataset('custom', path=f)
    assert sum(d.sizes().values()) == 30 and 'dropped 2 rows' in d.info.notes and str(f) in d.info.notes

def test_mostly_duplicates_is_an_error(tmp_path):
    f = _file(tmp_path, 'mostly.tsv', HEADER + _rows(20) * 3)
    _fails(f, '40 of its 60 pairs repeat an earlier pair, leaving only 20 distinct pairs', path=f)

def test_constant_score_column(tmp_path):
    f = _file(tmp_path, 'flat.tsv', HEADER + _rows(40, lambda i: 1))
    _fails(f, 'all its 40 pairs have the same score', "Spearman's correlation is undefined", path=f)

def test_split_with_constant_scores(tmp_path):
    "A rare positive lands in one split: the others are constant (Spearman/F1 undefined), so the load stops."
    f = _file(tmp_path, 'rare.tsv', HEADER + _rows(20, lambda i: int(i == 7)))
    _fails(f, 'the train split of', '(split 80/10/10 with SPLIT_SEED): all its 16 pairs have the same score', path=f)


# --- your own train, dev and test files --------------------------------------------------------------------------------

def _three(tmp_path, train=None, dev=None, test=None):
    t = dict(train=HEADER + _rows(20), dev=HEADER + 'a red car\ta blue car\t0.3\na small dog\ta big cat\t0.9\n',
             test=HEADER + 'the sun\tthe moon\t0.1\nrain today\tsnow tomorrow\t0.7\n')
    t.update({k: v for k, v in dict(train=train, dev=dev, test=test).items() if v is not None})
    return {k: _file(tmp_path, f'{k}.tsv', v) for k, v in t.items()}

def test_own_files_pass(tmp_path):
    assert load_dataset('custom', **_three(tmp_path)).sizes() == {'train': 20, 'dev': 2, 'test': 2}

def test_own_dev_file_with_one_pair(tmp_path):
    f = _three(tmp_path, dev=HEADER + 'a red car\ta blue car\t0.3\n')
    _fails(f['dev'], '(the dev file) has 1 pair, too few', **f)

def test_own_test_file_with_constant_scores(tmp_path):
    f = _three(tmp_path, test=HEADER + 'the sun\tthe moon\t1\nrain today\tsnow tomorrow\t1\n')
    _fails(f['test'], '(the test file): all its 2 pairs have the same score', **f)

def test_own_train_file_header_only(tmp_path):
    f = _three(tmp_path, train=HEADER)
    _fails(f['train'], 'has a header line', 'but no pairs', **f)

def test_pair_in_train_and_test_is_a_leak(tmp_path):
    f = _three(tmp_path, test=HEADER + 'Another sentence 3\tsentence   number 3\t0.1\nrain today\tsnow tomorrow\t0.7\n')   # swapped, other case
    _fails(f['test'], '1 of its 2 test pairs also occur in the train file', str(f['train']), 'a leak', **f)

def test_a_few_dev_pairs_in_train_is_a_warning(tmp_path):
    dev = HEADER + 'sentence number 3\tanother sentence 3\t0.6\n' + ''.join(f'a small dog {i}\ta big cat\t{i % 2}\n' for i in range(10))
    with pytest.warns(UserWarning, match='1 of its 11 dev pairs also occur in the train file'):
        d = load_dataset('custom', **_three(tmp_path, dev=dev))
    assert 'dev pairs also occur' in d.info.notes

def test_many_dev_pairs_in_train_stop_the_run(tmp_path):
    "Above DEV_OVERLAP (10 %) of the dev file: dev would choose the checkpoint on training pairs, so the load stops."
    f = _three(tmp_path, dev=HEADER + 'sentence number 3\tanother sentence 3\t0.6\na small dog\ta big cat\t0.9\n')
    _fails(f['dev'], '1 of its 2 dev pairs also occur in the train file', str(f['train']), '50% of the file, more than 10%', 'data_path=', **f)

def test_a_repeated_pair_never_lands_in_two_splits(tmp_path):
    "Exact and swapped/re-cased copies of a pair are one pair: after the split no pair key is in two splits."
    from augsbert.data import pair_keys
    rows = _rows(40) + ''.join(f'ANOTHER sentence {i}\tsentence  number {i}\t{i % 6 / 5}\n' for i in range(0, 40, 4))   # 10 swapped copies
    with pytest.warns(UserWarning, match='dropped 10 rows'):
        d = load_dataset('custom', path=_file(tmp_path, 'rep.tsv', HEADER + rows))
    keys = [set(pair_keys(s)) for s in (d.train, d.dev, d.test)]
    assert sum(map(len, keys)) == 40 and not (keys[0] & keys[1] or keys[0] & keys[2] or keys[1] & keys[2])


# --- the silver set ----------------------------------------------------------------------------------------------------

def _cls_splits():
    pairs = lambda n, o: pd.DataFrame(dict(sentence1=[f'q {i + o}' for i in range(n)], sentence2=[f'r {i + o}' for i in range(n)],
                                           score=[float(i % 2) for i in range(n)]))
    return PairSplits('quora-qp', 'classification', pairs(20, 0), pairs(6, 100), pairs(6, 200),
                      DatasetInfo('quora-qp', 'test', 'classification', (), '', '', ''))

@pytest.fixture
def bi_teacher():
    from augsbert.config import get_profile
    from augsbert.methods.in_domain import method_protocol as protocol_from_profile
    cfg = dict(get_profile('smoke'), student='static', static_init='tokens', teacher='bi-encoder')
    return protocol_from_profile(cfg, 'quora-qp', 'augsbert-kde')

def _no_training(*a, **k): raise AssertionError('a model was trained')

def test_empty_silver_set_is_an_error_before_the_student_trains(monkeypatch, bi_teacher):
    from augsbert.methods import in_domain as methods
    monkeypatch.setattr(methods, 'get_silver', lambda *a, **k: pd.DataFrame(columns=['sentence1', 'sentence2', 'score']))
    monkeypatch.setattr(methods, 'seed_results', _no_training)
    with pytest.raises(AugsbertError) as e:
        methods.run_method('augsbert-kde', _cls_splits(), bi_teacher, progress=False, speed=False)
    msg = str(e.value)
    for p in ("augsbert-kde on data set 'quora-qp' with teacher bi-encoder", 'the silver set is empty (0 pairs)',
              'calls no pair positive at its dev-F1 threshold', 'Fix: try -p teacher=cross-encoder'):
        assert p in msg, (p, msg)

def test_one_class_silver_set_is_a_warning_in_the_metrics(monkeypatch, bi_teacher):
    from augsbert.methods import in_domain as methods
    silver = pd.DataFrame(dict(sentence1=['q 1', 'q 2'], sentence2=['r 3', 'r 5'], score=[0.0, 0.0]))
    monkeypatch.setattr(methods, 'get_silver', lambda *a, **k: silver)
    monkeypatch.setattr(methods, 'seed_results', lambda *a, **k: [dict(seed=42, dev=50.0, test=40.0)])
    out, _ = methods.run_method('augsbert-kde', _cls_splits(), bi_teacher, progress=False, speed=False)
    assert out['silver']['pairs'] == 2 and len(out['warnings']) == 1
    assert 'one class only: the teacher called every pair negative' in out['warnings'][0]


# --- through the command line (one test: a papermill kernel costs ~20 s): exit status 2, the message, nothing trained ----

def _cli(capsys, *params)->tuple[int, str]:
    from augsbert.cli import main
    rc = main(['run', 'in_domain', '--profile', 'smoke', '-p', 'dataset=custom', '-p', 'method=sbert',
               *[x for p in params for x in ('-p', p)]])
    return rc, capsys.readouterr().err

def _trained(env)->list:
    "The cached stage artefacts (trained models, silver sets, scores) under the test's cache."
    return list((env/'cache'/'artefacts').glob('*/*'))

def test_cli_sixty_copies(env, tmp_path, capsys):
    f = _file(tmp_path, 'same.tsv', HEADER + 'A man plays a guitar.\tA person plays music.\t0.8\n' * 60)
    rc, err = _cli(capsys, f'data_path={f}')
    assert rc == 2 and 'augsbert: error:' in err and str(f) in err and 'only 1 distinct pair' in err, err
    assert not list((env/'reports').rglob('metrics.json')) and not _trained(env)
