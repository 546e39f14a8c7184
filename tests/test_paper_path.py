"""The paper path (`make paper`: grid `paper` in workflow/config.yaml, profile `paper` in settings.ini) executed end to end.

`make paper` needs a GPU and bert-base(-multilingual) from the hub, so the suite could only dry-run it. Here one job of every
run entry of the grid (and so of both its experiments) runs for real, through the CLI the Snakefile calls
(`augsbert run EXPERIMENT --profile paper --name NAME -p k=v …`, the name and `-p` arguments read from a Snakemake dry run of
the grid), at a tiny size and with three stand-ins:
- the hub models: a tiny random BERT (`augsbert.testing.make_tiny_bert`) saved under the profile's model names in the Hugging
  Face hub cache layout of a private HF_HOME, with HF_HUB_OFFLINE=1: `augsbert.models.resolve_model` and sentence-transformers
  resolve `bert-base-uncased` / `bert-base-multilingual-cased` exactly as on a machine that downloaded them;
- the GPU: the profile's `device = cuda` becomes `cpu` for these tests only (`-p device=cpu` when the notebook takes it, else
  a copy of settings.ini whose [profile paper] differs in that one line, found through AUGSBERT_ROOT);
- the size: `-p max_train_pairs=32` (a grid entry with its own value keeps it) and `-p seeds=2`, except where the 10 seeds
  are the point: the Figure 6 entry (`seeds: 10` in the grid) and the Table 5 BERT job, which keeps the profile's 10 seeds
  so that `seeds = 10` of [profile paper] runs once (about 15 s here); 10 seeds everywhere would add minutes and no path.
Everything else is the paper profile's: the 200-unit tanh head of the cross-encoder (`ce_hidden = 200`), the [CLS] head,
the learning rates, the multilingual model for Spanish-STS. Reports and cache go to temporary folders.

And: `device = cuda` on a machine without a GPU stops the run at once with a message that says what to do.
"""
import ast, json
from pathlib import Path
import pytest
import yaml
from conftest import needs_data

ROOT = Path(__file__).resolve().parents[1]
GRID = yaml.safe_load((ROOT/'workflow'/'config.yaml').read_text())['grids']['paper']
TINY_PAIRS, FEW_SEEDS = 32, 2

# Which job of each run entry of the paper grid runs here (entries in the order of workflow/config.yaml). The picks cover
# both models (English and multilingual), the cross-encoder with its hidden head, every kind of bi-encoder training, each
# sampler family (BM25, semantic search with the gold SBERT, KDE), silver_only and top_k, Figure 6's ten seed curves.
# (AugSBERT-BM25+S.S. is not picked: its 231 silver pairs train 3-10x slower here, the tiny random model's gradients
# going denormal on this CPU, and its parts are the BM25 and S.S. picks.)
PICKS = {
    'datasets': [
        lambda p: True,                                                              # Table 1, baselines, Figure 5
    ],
    'in_domain': [
        lambda p: p == dict(dataset='sts-es', method='bert'),                        # Table 5 baselines: multilingual CE
        lambda p: p == dict(dataset='sts-es', method='augsbert-bm25'),               # Table 5 AugSBERT-BM25
        lambda p: p['method'] == 'bert' and p['max_train_pairs'] == min(             # Figure 1: English CE, its smallest size
            GRID['experiments']['in_domain']['runs'][2]['grid']['max_train_pairs']),
        lambda p: True,                                                              # Figure 6: 10 seeds, 9 curve points
        lambda p: p['method'] == 'augsbert-kde',                                     # Figure 4: silver labels only
        lambda p: p == dict(dataset='sts-es', method='augsbert-ss', top_k=5),        # Tables 9/10: a top-k cell
    ],
}
JOBS = [(exp, i) for exp, picks in PICKS.items() for i in range(len(picks))]
PROFILE_SEEDS_JOB = ('in_domain', 0)   # keeps the profile's 10 seeds


def test_every_entry_of_the_paper_grid_has_a_job_here():
    "A new entry (or experiment) in the paper grid must get its job in PICKS."
    assert GRID['profile'] == 'paper'
    assert {e: len(s['runs']) for e, s in GRID['experiments'].items()} == {e: len(p) for e, p in PICKS.items()}


def _expand(entry:dict):
    "The params of every run of a grid entry (as workflow/Snakefile's expand_entry)."
    import itertools
    axes = entry.get('grid') or {}
    for combo in itertools.product(*[v if isinstance(v, list) else [v] for v in axes.values()]):
        yield {**(entry.get('params') or {}), **dict(zip(axes, combo))}

def _parsed(args:list)->dict:
    "`k=v` arguments as `augsbert run` reads them (a Python literal where one parses, else the string)."
    def value(v):
        try: return ast.literal_eval(v)
        except (ValueError, SyntaxError): return v
    return dict((k, value(v)) for k, v in (a.split('=', 1) for a in args))

def _same(grid_params:dict, cli:dict)->bool:
    norm = lambda d: {k: tuple(v) if isinstance(v, list) else v for k, v in d.items()}
    return norm(grid_params) == norm(cli)


@pytest.fixture(scope='module')
def grid_jobs(tmp_path_factory)->dict:
    "(experiment, entry) → (run name, `-p` arguments) of the picked job, as the Snakefile would run it (from a dry run)."
    from test_workflow import dry_run, commands
    cmds = commands(dry_run(tmp_path_factory.mktemp('paper-dry'), '--config', 'grid=paper'))
    jobs = {}
    for exp, i in JOBS:
        entry = GRID['experiments'][exp]['runs'][i]
        picked = [p for p in _expand(entry) if PICKS[exp][i](p)]
        assert picked, f"no job of {exp} entry {i} ({entry.get('what')}) matches its pick"
        found = [(name, args) for name, (e, prof, args) in cmds.items()
                 if e == exp and prof == 'paper' and _same(picked[0], _parsed(args))]
        assert len(found) == 1, (exp, i, picked[0], found)
        jobs[exp, i] = found[0]
    return jobs


def _declares(experiment:str, name:str)->bool:
    from augsbert.runs import experiment_path, notebook_parameters
    return name in notebook_parameters(experiment_path(experiment))


@pytest.fixture(scope='module')
def paper_env(tmp_path_factory):
    "Private reports, cache and HF cache (the tiny stand-ins under the profile's hub names), offline; the device switched to CPU."
    from augsbert.config import get_profile
    from augsbert.testing import make_tiny_bert
    base = tmp_path_factory.mktemp('paper')
    prof = get_profile('paper')
    assert prof['device'] == 'cuda' and prof['seeds'] == 10 and prof['ce_hidden'] == 200
    names = {prof['bi_encoder'], prof['cross_encoder'], prof['multilingual_model']}
    assert names == {'bert-base-uncased', 'bert-base-multilingual-cased'}
    hub, rev = base/'hf'/'hub', 'f' * 40
    for name in names:   # the hub cache layout: models--<org>--<name>/snapshots/<commit>/…, refs/main = <commit>
        repo = hub/('models--' + name.replace('/', '--'))
        make_tiny_bert(repo/'snapshots'/rev, seed=len(name))
        (repo/'refs').mkdir(); (repo/'refs'/'main').write_text(rev)
    mp = pytest.MonkeyPatch()
    for k, v in dict(AUGSBERT_REPORTS=base/'reports', AUGSBERT_CACHE=base/'cache', HF_HOME=base/'hf', HF_HUB_CACHE=hub,
                     HF_HUB_OFFLINE='1', AUGSBERT_OFFLINE='1', TOKENIZERS_PARALLELISM='false').items():
        mp.setenv(k, str(v))
    # the runs execute in this process (conftest.execute_in_process), which imported huggingface_hub before HF_HOME was set
    # here: its constants, read when it was imported, are set as a new process would read them from the environment
    import huggingface_hub.constants as hf
    for k, v in dict(HF_HOME=str(base/'hf'), HF_HUB_CACHE=str(hub), HF_HUB_OFFLINE=True).items(): mp.setattr(hf, k, v)
    extra = {}   # experiment -> the `-p` arguments that move it to the CPU
    if all(_declares(e, 'device') for e in GRID['experiments'] if e != 'datasets'):
        extra = {e: ['-p', 'device=cpu'] for e in GRID['experiments'] if e != 'datasets'}
    else:        # the notebooks take no `device`: the same settings.ini but `device = cpu` in [profile paper], for this module only
        root = base/'root'; root.mkdir()
        for f in ('nbs', 'pyproject.toml'): (root/f).symlink_to(ROOT/f)
        head, sep, paper = (ROOT/'settings.ini').read_text(encoding='utf-8').partition('[profile paper]')
        assert sep and paper.count('\ndevice = cuda\n') == 1
        (root/'settings.ini').write_text(head + sep + paper.replace('\ndevice = cuda\n', '\ndevice = cpu\n'), encoding='utf-8')
        mp.setenv('AUGSBERT_ROOT', str(root))
    assert get_profile('paper')['device'] == ('cuda' if extra else 'cpu')
    yield dict(base=base, extra=extra, hub=hub, rev=rev, profile=prof)
    mp.undo()


def _read(p:Path)->dict: return json.loads(p.read_text(encoding='utf-8'))


@needs_data
@pytest.mark.parametrize('exp,entry', JOBS, ids=[f'{e}-{i}' for e, i in JOBS])
def test_paper_job(paper_env, grid_jobs, exp, entry, capsys):
    "One job of the paper grid through `augsbert run` with the grid's own name and arguments, at a tiny size on the CPU."
    from augsbert.cli import main
    name, args = grid_jobs[exp, entry]
    given = _parsed(args)
    tiny = []
    if exp == 'in_domain':
        if 'max_train_pairs' not in given: tiny += ['-p', f'max_train_pairs={TINY_PAIRS}']
        if 'seeds' not in given and (exp, entry) != PROFILE_SEEDS_JOB: tiny += ['-p', f'seeds={FEW_SEEDS}']
    argv = ['run', exp, '--profile', 'paper', '--name', name, *[a for p in args for a in ('-p', p)],
            *paper_env['extra'].get(exp, []), *tiny]
    rc = main(argv)
    err = capsys.readouterr().err
    assert rc == 0, f"augsbert {' '.join(argv)} failed:\n{err[-3000:]}"

    out = paper_env['base']/'reports'/'runs'/exp/name
    params, metrics, prov = (_read(out/f) for f in ('params.json', 'metrics.json', 'provenance.json'))
    assert params['profile'] == 'paper'
    if exp == 'datasets':
        assert set(params['datasets']) <= set(metrics['sizes']) and len(params['datasets']) == 6
        return
    assert params['device'] == 'cpu'
    ml = given['dataset'] == 'sts-es'
    model = 'bert-base-multilingual-cased' if ml else 'bert-base-uncased'
    assert params['ce_hidden'] == 200 and params['ce_head'] == 'cls'
    assert {(m['name'], m['source'], m['revision']) for m in prov['models']} == {(model, 'hub', paper_env['rev'])}
    prof = paper_env['profile']
    seeds = given.get('seeds', prof['seeds'] if (exp, entry) == PROFILE_SEEDS_JOB else FEW_SEEDS)
    assert params['seeds'] == seeds
    if given.get('silver_only'):
        assert metrics['silver_only'] and metrics['per_seed'] == [] and metrics['silver']['pairs'] >= 0
        return
    assert len(metrics['per_seed']) == seeds and [r['seed'] for r in metrics['per_seed']] == list(range(prof['seed'], prof['seed'] + seeds))
    assert all(-100 <= r['test'] <= 100 for r in metrics['per_seed'])
    if given['method'] == 'bert':
        assert metrics['model'] == model and metrics['throughput']['model'] == model
    if given.get('curve_points'):
        assert all([f for f, _ in r['curve']] == [*given['curve_points'], 1.0] for r in metrics['per_seed'])
    if given['method'].startswith('augsbert'):
        assert metrics['silver']['pairs'] > 0 and metrics['teacher'] == 'cross-encoder'


@needs_data
def test_paper_cross_encoders_have_the_200_unit_head(paper_env, grid_jobs):
    "Every cross-encoder the paper jobs trained (and cached) has the profile's head: [CLS] -> 200 tanh units -> 1 logit."
    folders = sorted({p.parent for p in (paper_env['base']/'cache').rglob('modules.json') if 'cross-encoder' in p.parts})
    if not folders: pytest.skip("no paper job has trained a cross-encoder in this session (run it with test_paper_job)")
    for f in folders:
        dense = [_read(d/'config.json') for d in sorted(f.glob('*_Dense'), key=lambda d: int(d.name.split('_')[0]))]
        assert [(d['in_features'], d['out_features'], d['activation_function'].rsplit('.', 1)[1]) for d in dense] == \
            [(32, 200, 'Tanh'), (200, 1, 'Identity')], f
        assert _read(f/'1_Pooling'/'config.json')['pooling_mode'] == 'cls'


# ---- device = cuda without a GPU ----

def _no_gpu():
    import torch
    return not torch.cuda.is_available()

needs_no_gpu = pytest.mark.skipif(not _no_gpu(), reason="this machine has a CUDA GPU")

@needs_no_gpu
def test_cuda_without_gpu_stops_at_once(tmp_path, monkeypatch, capsys):
    "`augsbert run in_domain --profile paper` without a GPU: exit 2 and the message, before any data or model is loaded."
    from augsbert.cli import main
    for k, v in dict(AUGSBERT_REPORTS=tmp_path/'reports', AUGSBERT_CACHE=tmp_path/'cache', HF_HOME=tmp_path/'hf',
                     HF_HUB_CACHE=tmp_path/'hf'/'hub', HF_HUB_OFFLINE='1', AUGSBERT_OFFLINE='1',
                     AUGSBERT_DATA_MIRROR=tmp_path/'no-data').items():   # a data or model load would fail differently
        monkeypatch.setenv(k, str(v))
    monkeypatch.setenv('AUGSBERT_ROOT', str(ROOT))   # not paper_env's copy
    assert main(['run', 'in_domain', '--profile', 'paper', '-p', 'dataset=sts-es', '-p', 'method=bert']) == 2
    err = capsys.readouterr().err
    assert "device 'cuda' requested" in err and 'no CUDA GPU is available' in err and '-p device=cpu' in err, err
    assert 'DataError' not in err and 'OfflineError' not in err                          # no data or model load came first
    assert not (tmp_path/'cache').exists() or not any((tmp_path/'cache').rglob('*.json'))   # nothing trained or cached


@needs_no_gpu
def test_cuda_error_names_the_profile(tmp_path, monkeypatch, capsys):
    from augsbert.cli import main
    monkeypatch.setenv('AUGSBERT_REPORTS', str(tmp_path/'reports')); monkeypatch.setenv('AUGSBERT_CACHE', str(tmp_path/'cache'))
    monkeypatch.setenv('AUGSBERT_DATA_MIRROR', str(tmp_path/'no-data')); monkeypatch.setenv('AUGSBERT_ROOT', str(ROOT))   # not paper_env's copy
    assert main(['run', 'in_domain', '--profile', 'paper', '-p', 'dataset=sts-es', '-p', 'method=bert']) == 2
    assert "device 'cuda' requested (profile paper) but no CUDA GPU is available" in capsys.readouterr().err


@needs_no_gpu
def test_pick_device_never_falls_back():
    from augsbert.config import AugsbertError
    from augsbert.models import pick_device
    from augsbert.training import TrainConfig, training_arguments
    with pytest.raises(AugsbertError, match=r"device 'cuda' requested \(profile paper\) but no CUDA GPU is available: "
                                            r"run on a GPU machine, or pass -p device=cpu"):
        pick_device('cuda', 'paper')
    with pytest.raises(AugsbertError, match='no CUDA GPU'): training_arguments(TrainConfig(device='cuda'), '/tmp/unused')
    assert pick_device('cpu') == 'cpu' and pick_device(None) == 'cpu'
