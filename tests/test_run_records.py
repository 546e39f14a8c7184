"""Every number named, every run's models by role: each experiment notebook records what its numbers are (`metric` in
metrics.json, printed with the result) and, in provenance.json, `student_model`, `teacher_model` and `train_cap`.
Static checks of the notebooks' code (json + ast: no notebook is run) and unit tests of the records; fast."""
import ast, hashlib, json, re
from pathlib import Path
import pytest
from augsbert.metrics import METRIC_CARDS, metric_card, metric_text
from augsbert.runs import Run, cap_record, model_record, read_json, student_record

EXPERIMENTS = Path(__file__).resolve().parents[1]/'nbs'/'experiments'
NOTEBOOKS = sorted(EXPERIMENTS.glob('*.ipynb'))
ROLES = ('student_model', 'teacher_model', 'train_cap')
# domain_adaptation's `metric` is the metric's name ('auc05' or 'spearman') that its report and tests read: its card is `metric_card`
CARD_KEY = {'domain_adaptation': 'metric_card'}

def tree(nb:Path)->ast.Module:
    "The notebook's code cells as one module (IPython magics and shell escapes blanked)."
    cells = json.loads(nb.read_text(encoding='utf-8'))['cells']
    code = '\n'.join(re.sub(r'(?m)^[ \t]*[%!].*$', '', ''.join(c['source'])) for c in cells if c['cell_type'] == 'code')
    return ast.parse(code)

def calls(t:ast.Module, name:str)->list[ast.Call]:
    "Calls of `name` as a method (`run.name(...)`) or a function (`name(...)`)."
    def called(f): return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else None
    return [n for n in ast.walk(t) if isinstance(n, ast.Call) and called(n.func) == name]

def keywords(c:ast.Call)->set[str]: return {k.arg for k in c.keywords if k.arg}

def names(node)->set[str]: return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}

def test_there_are_experiments():
    assert {'in_domain', 'domain_adaptation', 'evidence', 'augcse', 'contexts', 'arguebert', 'arguebert_pretrain', 'method',
            'datasets'} <= {p.stem for p in NOTEBOOKS}

@pytest.mark.parametrize('nb', NOTEBOOKS, ids=lambda p: p.stem)
def test_metrics_name_their_metric(nb):
    "save_metrics gets a `dict(..., metric=...)` (a card from `metric_card`), and the run prints it."
    t, key = tree(nb), CARD_KEY.get(nb.stem, 'metric')
    saves = calls(t, 'save_metrics')
    assert len(saves) == 1, f"{nb.name}: {len(saves)} save_metrics calls"
    arg = saves[0].args[0]
    assert isinstance(arg, ast.Call) and getattr(arg.func, 'id', None) == 'dict' and key in keywords(arg), \
        f"{nb.name}: save_metrics(dict(..., {key}=...)) names no metric"
    assert calls(t, 'metric_card'), f"{nb.name}: the metric is not built from augsbert.metrics.metric_card"
    printed = [p for p in calls(t, 'print') if calls(p, 'metric_text') or {'card', 'metric'} & names(p)]
    assert printed, f"{nb.name}: the run does not print what its numbers are (print(metric_text(...)))"

@pytest.mark.parametrize('nb', NOTEBOOKS, ids=lambda p: p.stem)
def test_provenance_names_the_models_by_role(nb):
    "save_provenance gets student_model, teacher_model and train_cap, each decided by the notebook (None where there is none)."
    saves = calls(tree(nb), 'save_provenance')
    assert len(saves) == 1, f"{nb.name}: {len(saves)} save_provenance calls"
    missing = [k for k in ROLES if k not in keywords(saves[0])]
    assert not missing, f"{nb.name}: save_provenance without {', '.join(missing)}"

def test_every_card_is_complete():
    for k, c in METRIC_CARDS.items():
        assert set(c) == {'name', 'title', 'scale', 'threshold'} and c['title'] and c['scale'], k
    assert metric_card('sts-avg')['task'] == 'sts-avg' and 'STS12-16' in metric_card('sts-avg')['title']
    text = metric_text({'dev, test': metric_card('auc05'), 'f1_test': metric_card('classification')}).splitlines()
    assert text[0].startswith('dev, test: AUC(0.05) (') and text[0].endswith('threshold: none') and 'best F1 on dev' in text[1]

def test_model_record_hashes_a_local_folder(tmp_path):
    d = tmp_path/'model'; d.mkdir(); (d/'model.safetensors').write_bytes(b'w1')
    r = model_record(d, 'teacher (cross-encoder)')
    assert (r['name'], r['source'], r['role']) == (str(d), 'local', 'teacher (cross-encoder)')
    assert r['sha256'] == hashlib.sha256(b'w1').hexdigest()
    (d/'model.safetensors').write_bytes(b'w2')
    assert model_record(d)['sha256'] == hashlib.sha256(b'w2').hexdigest()     # other weights, another hash
    assert model_record(None) is None

def test_student_record_says_what_a_static_student_is():
    from augsbert.models import DEFAULT_MODEL
    tok = student_record('static', DEFAULT_MODEL, dict(static_init='tokens', static_lr=0.05, static_epochs=1, static_dims=256))
    m2v = student_record('static', DEFAULT_MODEL, dict(static_init='model2vec', static_lr=0.05, static_epochs=1, static_dims=256))
    assert tok['name'] == m2v['name'] == DEFAULT_MODEL and tok['sha256'] and tok['source'] == 'package'
    assert 'input token embeddings' in tok['built'] and 'model2vec' in m2v['built'] and m2v['title'] == 'static (model2vec)'
    assert 'built' not in student_record('minilm', DEFAULT_MODEL, {})

def test_provenance_always_has_the_roles(tmp_path):
    from augsbert.config import get_profile
    r = Run('demo', get_profile('smoke'), tmp_path)
    r.save_provenance()
    assert all(read_json(tmp_path/'provenance.json')[k] is None for k in ROLES)
    r.save_provenance(student_model=dict(name='s', sha256='0'), train_cap=cap_record(10, 10, 100))
    p = read_json(tmp_path/'provenance.json')
    assert p['student_model']['name'] == 's' and p['teacher_model'] is None
    assert p['train_cap'] == dict(max_train_pairs=10, used=10, available=100)
