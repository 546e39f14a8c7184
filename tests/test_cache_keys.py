"""A stage's cache key covers every package module its code reaches (issue 27, defect 1): an edit to any reached module
changes the key, an edit to a module it does not reach does not; the stale-BM25 reproduction recomputes the silver set."""
import ast, json, subprocess, sys
from pathlib import Path
import pytest
from conftest import needs_data
from augsbert import cache
from augsbert.cache import code_version, reached_modules, module_imports, stage_key

PKG = Path(cache.__file__).resolve().parent

def _name(p:Path)->str:
    parts = p.relative_to(PKG).with_suffix('').parts
    return '.'.join(('augsbert',) + (parts[:-1] if parts[-1] == '__init__' else parts))

MODULES = sorted(_name(p) for p in PKG.rglob('*.py') if p.name != '_modidx.py')

def _stage_calls():
    "(module, line, call) of every `stage_key(...)` call in the package."
    for p in sorted(PKG.rglob('*.py')):
        for node in ast.walk(ast.parse(p.read_text(encoding='utf-8'))):
            if isinstance(node, ast.Call) and getattr(node.func, 'id', getattr(node.func, 'attr', None)) == 'stage_key':
                yield _name(p), node.lineno, node

def _entry_points():
    "The code every stage names: the declared tuples, and each module that computes a stage (its functions count as it)."
    from augsbert.methods.in_domain import STAGE_CODE
    from augsbert.methods.domain_adaptation import DA_CODE
    from augsbert.methods.arguebert.pretraining import _PRETRAIN_CODE
    from augsbert.teachers import TEACHER_CODE
    entries = {f'methods.STAGE_CODE[{k!r}]': v for k, v in STAGE_CODE.items()}
    entries['teachers.TEACHER_CODE'] = TEACHER_CODE
    entries.update({'domain.DA_CODE': DA_CODE, 'arguebert._PRETRAIN_CODE': _PRETRAIN_CODE})
    entries.update({f'module {m}': (m,) for m in sorted({m for m, *_ in _stage_calls()} - {'augsbert.cache'})})
    return entries

ENTRIES = _entry_points()

@pytest.fixture(autouse=True)
def frozen_sources(monkeypatch):
    "Every module's text read once, so that a file rewritten meanwhile (an export) cannot change a key mid-test."
    texts = {}
    real = cache.module_source
    monkeypatch.setattr(cache, 'module_source', lambda m: texts[m] if m in texts else texts.setdefault(m, real(m)))

def _edited(monkeypatch, name):
    "Make `module_source` return module `name`'s text with one line added, as after a bug fix in it."
    real = cache.module_source
    monkeypatch.setattr(cache, 'module_source', lambda m: real(m) + ('\n# edited\n' if m == name else ''))

def test_every_stage_names_its_code():
    calls = list(_stage_calls())
    assert len(calls) >= 15
    for mod, line, call in calls:
        if mod == 'augsbert.cache': continue                       # stage_key's own definition and docs
        code = next((k.value for k in call.keywords if k.arg == 'code'), None)
        if code is None and any(k.arg is None for k in call.keywords): continue   # code= inside a **dict (seed_results)
        assert code is not None, f"{mod}:{line}: stage_key(...) without code=: its cache would outlive code changes"
        assert not (isinstance(code, ast.Tuple) and not code.elts), f"{mod}:{line}: empty code=()"

@pytest.mark.parametrize('entry', ENTRIES)
def test_edits_change_a_key_exactly_when_the_stage_reaches_them(entry, monkeypatch):
    code = ENTRIES[entry]
    reached, before = set(reached_modules(*code)), code_version(*code)
    assert reached, entry
    for m in MODULES:
        with monkeypatch.context() as mp:
            _edited(mp, m)
            after = code_version(*code)
        assert (after != before) == (m in reached), f"{entry}: editing {m} {'did not change' if m in reached else 'changed'} the key"

@pytest.mark.parametrize('entry', ['augsbert.sampling', 'augsbert.methods.in_domain'])
def test_reached_covers_what_python_imports(entry):
    "Not circular: every package module that importing `entry` loads (a fresh interpreter) is among those reached."
    out = subprocess.run([sys.executable, '-c', f"import json, sys, {entry}; print(json.dumps(sorted(sys.modules)))"],
                         capture_output=True, text=True, check=True).stdout
    loaded = {m for m in json.loads(out) if m == 'augsbert' or m.startswith('augsbert.')}
    assert loaded - set(reached_modules(entry)) == set()

def test_imports_inside_functions_strings_and_relative_imports_count():
    ours, other = module_imports('augsbert.methods.in_domain')
    assert {'augsbert.training', 'augsbert.sampling', 'augsbert.silver'} <= ours          # relative, at the top
    assert 'augsbert.bm25' in module_imports('augsbert.sampling')[0]                      # the module the old list missed
    assert {'augsbert.loaders.sts', 'augsbert.loaders.custom'} <= module_imports('augsbert.data')[0]   # named as strings
    assert 'pandas' in other and 'logging' not in other

def test_package_versions_are_part_of_the_code_version(monkeypatch):
    before, other = code_version('augsbert.bm25'), code_version('augsbert.config')
    real = cache._version
    monkeypatch.setattr(cache, '_version', lambda t: 'numpy==0.0.1' if t == 'numpy' else real(t))
    assert code_version('augsbert.bm25') != before                      # bm25 imports numpy
    assert code_version('augsbert.config') == other                     # augsbert.config does not

def test_the_old_bm25_reproduction_changes_the_silver_key(monkeypatch):
    "The issue's reproduction, at the key: the silver stage's key changes when augsbert/bm25.py is edited."
    from augsbert.methods.in_domain import STAGE_CODE, get_silver
    code = STAGE_CODE['silver'] + (get_silver,)
    before = stage_key('silver', code=code, sampler='bm25', size=3)
    _edited(monkeypatch, 'augsbert.bm25')
    assert stage_key('silver', code=code, sampler='bm25', size=3) != before
    _edited(monkeypatch, 'augsbert.metrics')                          # its tokenizer
    assert stage_key('silver', code=code, sampler='bm25', size=3) != before


@needs_data
def test_an_edited_bm25_recomputes_the_silver_set(tmp_path, tiny, monkeypatch):
    "End to end: silver set made, reused unchanged, then made again (and different) once augsbert.bm25 has changed."
    from augsbert.methods import in_domain as pipeline
    from augsbert.config import get_profile
    from augsbert.data import load_dataset, PairSplits
    monkeypatch.setenv('AUGSBERT_CACHE', str(tmp_path/'cache'))
    full = load_dataset('sts-es')
    data = PairSplits(name='sts-es', task='regression', train=full.train.iloc[:24], dev=full.dev.iloc[:30],
                      test=full.test.iloc[:30], info=full.info)
    proto = pipeline.method_protocol(get_profile('smoke'), 'sts-es', 'augsbert-bm25', tiny, tiny)
    real_label, labelled = pipeline.label_pairs, []
    monkeypatch.setattr(pipeline, 'label_pairs', lambda predict, cand, *a, **kw: labelled.append(len(cand)) or real_label(predict, cand, *a, **kw))
    first = pipeline.get_silver('bm25', data, data.train, proto, progress=False)
    again = pipeline.get_silver('bm25', data, data.train, proto, progress=False)
    assert len(labelled) == 1 and again.equals(first)                 # the unchanged code reuses the cached set
    _edited(monkeypatch, 'augsbert.bm25')                             # augsbert/bm25.py edited, as in the issue
    edited = pipeline.get_silver('bm25', data, data.train, proto, progress=False)
    assert len(labelled) == 2, "the silver set was served from the cache after augsbert.bm25 changed"
    assert edited.equals(first)                                       # the edit was a comment: recomputed, same pairs
