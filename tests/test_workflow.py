"""The Snakemake workflow of `make reproduce` / `make paper` (workflow/Snakefile, the grid in workflow/config.yaml).

Dry runs only (seconds each, nothing executed): the jobs of the main job and of the paper grid, the SLURM profile
(skipped without its plugin), what reruns (outputs' times, code stamps, adopt_committed), config errors. Every call
runs with a private AUGSBERT_CACHE / AUGSBERT_REPORTS and `--directory` in a temp folder, so nothing is written into
the repository; the test that edits library code edits a copy of the package (PYTHONPATH).
One real tiny job end to end (the `datasets` experiment on the smoke profile, twice) is marked slow.
"""
import importlib.util, json, os, re, shutil, subprocess, sys, time
from pathlib import Path
import pytest
from conftest import needs_data
from augsbert.grid import RUN_FILES
from augsbert.runs import code_digest, experiment_path

ROOT = Path(__file__).resolve().parents[1]
SNAKEMAKE = str(Path(sys.executable).parent/'snakemake')
PROFILES = ROOT/'workflow'/'profiles'

def snakemake(tmp:Path, *args, profile='local', timeout=300, env=None)->subprocess.CompletedProcess:
    env = dict(os.environ, AUGSBERT_CACHE=str(tmp/'cache'), AUGSBERT_REPORTS=str(tmp/'reports'), **(env or {}))
    cmd = [SNAKEMAKE, '--snakefile', str(ROOT/'workflow'/'Snakefile'), '--profile', str(PROFILES/profile),
           '--directory', str(tmp/'wd'), *args]
    return subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)

def dry_run(tmp, *args, **kw)->str:
    r = snakemake(tmp, '--dry-run', *args, **kw)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout + r.stderr

def job_stats(out:str)->dict:
    "rule → job count, from the first 'Job stats' table of a dry run ({} when there is nothing to do)."
    m = re.search(r'Job stats:\njob\s+count\n[- ]+\n(.*?)\ntotal\s+(\d+)', out, re.S)
    if not m: return {}
    stats = {rule: int(n) for rule, n in (line.split() for line in m.group(1).splitlines())}
    assert sum(stats.values()) == int(m.group(2))
    return stats

def outputs(out:str)->list:
    "Every output file of the jobs a dry run lists."
    return sorted({f for line in re.findall(r'\n    output: (.*)', out) for f in line.split(', ')})

def fake_outputs(files, t:float):
    "Write each of `files` (a run's provenance.json records no code: a run made before runs recorded it); reports a minute after the runs."
    for f in map(Path, files):
        f.parent.mkdir(parents=True, exist_ok=True); f.write_text('{}')
        os.utime(f, (t, t + 60 * (f.parent.name == 'reports')))

def commands(out:str)->dict:
    "run name → (experiment, profile, the `-p` arguments) of every `augsbert run` a dry run lists."
    found = re.findall(r'augsbert run (\S+) --profile (\S+) --name (\S+)((?: -p \S+)*) >', out)
    return {name: (exp, prof, args.split(' -p ')[1:]) for exp, prof, name, args in found}

@pytest.fixture(scope='module')
def main_dry_run(tmp_path_factory): return dry_run(tmp_path_factory.mktemp('main'))

@pytest.fixture(scope='module')
def paper_dry_run(tmp_path_factory): return dry_run(tmp_path_factory.mktemp('paper'), '--config', 'grid=paper')

MAIN_CELL = 'cpu_stsb_static_mpnet-ce_bm25_main'

def test_main_job(main_dry_run):
    "The main job (issue 29): the data sets and one evidence cell (MPNet cross-encoder -> static student on STSb), two reports."
    assert job_stats(main_dry_run) == dict(run_datasets=1, run_evidence=1, report_datasets=1, report_evidence=1, all=1)
    cmds = commands(main_dry_run)
    assert len(cmds) == 2 and {p for _, p, _ in cmds.values()} == {'cpu'}
    assert cmds['cpu'] == ('datasets', 'cpu', [])
    exp, _, args = cmds[MAIN_CELL]
    assert exp == 'evidence' and args[:5] == ['dataset=stsb', 'student=static', 'teacher_model=mpnet', 'strategies=bm25,', 'teacher_search=False']
    assert 'augsbert report evidence -p profile=cpu' in main_dry_run
    assert 'augsbert report datasets -p run_name=cpu' in main_dry_run
    assert 'threads: 2' in main_dry_run and 'mem_mb=12000' in main_dry_run and 'runtime=120' in main_dry_run

def test_run_jobs_pin_every_thread_pool(main_dry_run):
    "Each run's command gives OpenMP, MKL and numba the job's `threads` (numba's pool is OpenMP's: see the next test)."
    found = re.findall(r'OMP_NUM_THREADS=(\d+) MKL_NUM_THREADS=(\d+) NUMBA_NUM_THREADS=(\d+) \S*augsbert run', main_dry_run)
    assert len(found) == 2 and all(len(set(t)) == 1 for t in found), found

# torch's pool made first (a run trains its teacher before it samples), then a BM25 search, then torch's count
_BM25_THEN_TORCH = ("import torch; torch.get_num_threads(); from augsbert.bm25 import bm25_index, bm25_search; "
                    "bm25_search(bm25_index([['a', 'b'], ['b', 'c'], ['c', 'd']]), [['b']], k=1, progress=False); "
                    "print(torch.get_num_threads())")

def _threads_after_bm25(**env)->int:
    base = {k: v for k, v in os.environ.items() if k != 'NUMBA_NUM_THREADS'}
    r = subprocess.run([sys.executable, '-c', _BM25_THEN_TORCH], env=dict(base, OMP_NUM_THREADS='1', MKL_NUM_THREADS='1', **env),
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return int(r.stdout.split()[-1])

def test_bm25_keeps_torch_at_the_jobs_threads():
    "With the environment a run job gets, torch still has one thread after a BM25 search."
    assert _threads_after_bm25(NUMBA_NUM_THREADS='1') == 1

@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="numba's default pool is one thread on one core")
def test_why_numba_needs_its_own_setting():
    """Without NUMBA_NUM_THREADS, numba's first parallel call resizes the OpenMP pool torch shares to one thread per core,
    whatever OMP_NUM_THREADS and MKL_NUM_THREADS say (numba with the omp threading layer). If this fails, numba stopped doing so."""
    assert _threads_after_bm25() > 1

def given_recipes()->list:
    "(where, the params of a grid entry that gives its teacher's recipe instead of searching, the committed run whose search chose it)."
    from augsbert.grid import grid_config
    grids = grid_config()['grids']
    runs = lambda g: grids[g]['experiments']['evidence']['runs']
    out = [('main', runs('main')[0]['params'], 'cpu_stsb_static_mpnet-ce_rs-bm25'),
           ('teachers S.S.', runs('teachers')[2]['params'], 'cpu_stsb_static_mpnet-ce_rs-bm25')]
    l2l6 = [r['params'] for r in runs('teachers') if (r.get('grid') or {}).get('student') == ['minilm-cut', 'minilm'] and r['params']['strategies'] == ['random', 'bm25']]
    five = ['bws-cross-topic', 'bws-in-topic', 'mrpc', 'quora-qp', 'sts-es']
    assert sorted(p['dataset'] for p in l2l6) == five
    ss = [r for r in runs('teachers')[3:] if r['params'].get('strategies') == ['semantic', 'bm25-semantic']]
    ss_static = [r['params'] for r in ss if r['params'].get('student') == 'static']
    ss_minilm = [r['params'] for r in ss if (r.get('grid') or {}).get('student') == ['minilm-cut', 'minilm']]
    assert sorted(p['dataset'] for p in ss_static) == five and sorted(p['dataset'] for p in ss_minilm) == sorted(five + ['stsb'])
    return out + [(f"teachers {w} {p['dataset']}", p, f"cpu_{p['dataset']}_static_mpnet-ce_rs-bm25")
                  for w, ps in (('L2/L6', l2l6), ('S.S.', ss_static), ('S.S. L2/L6', ss_minilm)) for p in ps]

# Cells whose recipe an earlier search of their static cell chose, kept when the static cell was re-made by newer code and
# its search chose another (workflow/config.yaml says why): where → (head, lr, epochs, the commit whose run chose it).
EARLIER_CHOICE = {'teachers L2/L6 mrpc': ('mean', 5e-05, 2, 'c511208')}

GIVEN_RECIPES = given_recipes()

@pytest.mark.parametrize('where,params,search', GIVEN_RECIPES, ids=[w for w, *_ in GIVEN_RECIPES])
def test_given_recipe_is_the_one_chosen_on_dev(where, params, search):
    "A cell that gives its teacher's recipe (the main cell, the S.S. cells, the MiniLM-L2/-L6 cells of the other five data sets) gives the one its data set's static cell chose on dev (recorded in that committed run)."
    assert params['teacher_search'] is False and params['teacher_model'] == 'mpnet'
    run = ROOT/'reports'/'runs'/'evidence'/search/'metrics.json'
    if not run.exists(): pytest.skip(f'the search run {search} is not committed')
    best = json.loads(run.read_text())['teacher']['recipe']
    if where in EARLIER_CHOICE:   # the static cell's search now chose otherwise; the recipe given is still one of its candidates
        head, lr, epochs, _ = EARLIER_CHOICE[where]
        assert (params['ce_head'], params['ce_lr'], params['ce_epochs']) == (head, lr, epochs) != (best['head'], best['lr'], best['epochs'])
        cands = json.loads(run.read_text())['teacher']['search']['candidates']
        assert any((c['head'], c['lr'], c['epochs']) == (head, lr, epochs) for c in cands), where
        return
    assert (params['ce_head'], params['ce_lr'], params['ce_epochs']) == (best['head'], best['lr'], best['epochs']), where
    prof = __import__('augsbert.config', fromlist=['x']).get_profile('cpu')
    assert params['ce_warmup_ratio'] == pytest.approx(min(1.0, prof['ce_warmup_ratio'] * best['of_epochs'] / best['epochs']))   # `apply_recipe`

def test_teachers_grid(tmp_path):
    "`make teachers`: the evidence cells and their report; the first STSb cell's teachers are shared by the cells after it."
    out = dry_run(tmp_path, '--config', 'grid=teachers')
    assert job_stats(out) == dict(run_evidence=209, report_evidence=1, all=1)   # 49 cells, 32 of them as 5 shards + a merge
    cmds = commands(out)
    q = 'cpu_quora-qp_static_mpnet-ce_rs-bm25'
    assert cmds[f'{q}_shard-3'][2] == ['student=static', 'teacher_model=mpnet', 'strategies=random,bm25', 'dataset=quora-qp', 'shard=3']
    assert f"from_shards={','.join(f'{q}_shard-{i}' for i in range(5))}" in cmds[q][2]
    assert cmds['cpu_stsb_static_mpnet-ce_rs-bm25'][2] == ['dataset=stsb', 'student=static', 'teacher_model=mpnet', 'strategies=random,bm25']
    m = 'cpu_stsb_minilm_mpnet-ce_rs-bm25'                            # the MiniLM-L6 student's cell, in shards too
    assert cmds[f'{m}_shard-2'][2] == ['dataset=stsb', 'student=minilm', 'teacher_model=mpnet', 'strategies=random,bm25', 'shard=2']
    assert f"from_shards={','.join(f'{m}_shard-{i}' for i in range(5))}" in cmds[m][2]
    e = 'cpu_sts-es_static_mpnet-ce_rs-bm25'                           # Spanish-STS: the sixth data set with the MPNet teacher
    assert cmds[f'{e}_shard-0'][2] == ['student=static', 'teacher_model=mpnet', 'strategies=random,bm25', 'dataset=sts-es', 'shard=0']
    assert f"from_shards={','.join(f'{e}_shard-{i}' for i in range(5))}" in cmds[e][2]
    l2 = 'cpu_quora-qp_minilm-cut_mpnet-ce_rs-bm25'                  # students L2 and L6 on the other data sets: the static cell's teachers
    assert cmds[f'{l2}_shard-0'][2] == ['dataset=quora-qp', 'teacher_model=mpnet', 'strategies=random,bm25', 'teacher_search=False',
                                        'ce_head=mean', 'ce_lr=2e-05', 'ce_epochs=2', 'ce_warmup_ratio=0.1', 'student=minilm-cut', 'shard=0']
    assert {'cpu_mrpc_minilm_mpnet-ce_rs-bm25', 'cpu_bws-in-topic_static_minilm-ce_rs-bm25_shard-4'} <= set(cmds)
    s = 'cpu_bws-in-topic_static_mpnet-ce_ss'                          # S.S. and BM25+S.S. on every data set: the static cell's teachers
    assert cmds[s][2] == ['dataset=bws-in-topic', 'student=static', 'teacher_model=mpnet', 'strategies=semantic,bm25-semantic',
                          'teacher_search=False', 'ce_head=mean', 'ce_lr=5e-05', 'ce_epochs=1', 'ce_warmup_ratio=0.2']
    m = 'cpu_stsb_minilm_mpnet-ce_ss'                                  # ... and teaching MiniLM-L2 and -L6, in shards
    assert cmds[f'{m}_shard-1'][2] == ['dataset=stsb', 'teacher_model=mpnet', 'strategies=semantic,bm25-semantic', 'teacher_search=False',
                                       'ce_head=mean', 'ce_lr=5e-05', 'ce_epochs=1', 'ce_warmup_ratio=0.2', 'student=minilm', 'shard=1']
    assert f"from_shards={','.join(f'{m}_shard-{i}' for i in range(5))}" in cmds[m][2]
    assert {f'cpu_mrpc_static_{t}-ce_bm25_labels-{m}' for t in ('minilm', 'mpnet') for m in ('dev-f1', 'rate', 'soft')} <= set(cmds)

def test_figures_4_and_6_are_in_extra(tmp_path):
    cmds = commands(dry_run(tmp_path, '--config', 'grid=extra'))
    assert cmds['cpu_fig6_seed-curves'][2] == ['dataset=stsb', 'method=sbert', 'seeds=8', 'max_train_pairs=250',
                                               'curve_points=0.1,0.2,0.3,0.5,0.7']
    assert {'cpu_dataset-sts-es_method-augsbert-kde_silver_only-True', 'cpu_dataset-sts-es_method-augsbert-rs_silver_only-True'} <= set(cmds)
    # the main job's STSb cells until issue 29
    assert cmds['cpu_dataset-stsb_method-sbert'] == ('in_domain', 'cpu', ['dataset=stsb', 'method=sbert'])
    assert cmds['cpu_dataset-stsb_method-augsbert-bm25_student-static_teacher-bi-encoder'][2] == [
        'dataset=stsb', 'method=augsbert-bm25', 'student=static', 'teacher=bi-encoder']

def test_domain_grid(tmp_path):
    "`make domain`: the source -> target matrix (every cell one papermill run) and its report."
    out = dry_run(tmp_path, '--config', 'grid=domain')
    # the evidence report too: its claim "DA > source-only" reads these runs, so it is re-rendered after them
    assert job_stats(out) == dict(run_domain_adaptation=10, report_domain_adaptation=1, report_evidence=1, all=1)
    pairs = {(a[0].split('=')[1], a[1].split('=')[1]) for _, _, a in commands(out).values()}
    assert {('quora-qp', 'mrpc'), ('mrpc', 'quora-qp'), ('stsb', 'mrpc'), ('stsb', 'quora-qp'), ('stsb', 'bws-cross-topic'), ('stsb', 'sick-r'),
            ('sick-r', 'stsb'), ('bws-cross-topic', 'stsb')} <= pairs

def test_domain_mpnet_grid(tmp_path):
    "`make domain DOMAIN=domain-mpnet`: the 8 pairs x 2 students with the MPNet teacher, the domain and evidence reports."
    out = dry_run(tmp_path, '--config', 'grid=domain-mpnet')
    assert job_stats(out) == dict(run_domain_adaptation=16, report_domain_adaptation=1, report_evidence=1, all=1)

def test_main_job_writes_the_committed_runs(main_dry_run):
    "The workflow's run folders are the committed ones the reports read (the names the former Makefile loops made)."
    for name, (exp, _, _) in commands(main_dry_run).items():
        assert (ROOT/'reports'/'runs'/exp/name/'metrics.json').exists(), f"{exp}/{name}"

def test_paper_grid(paper_dry_run):
    stats = job_stats(paper_dry_run)
    # Table 5: 6 data sets x 8 methods; Figure 1: 6 sizes x 2; Figure 6: 1; Figure 4: 3; Tables 9/10: 4 x 2 x 6
    assert stats == dict(run_datasets=1, run_in_domain=48 + 12 + 1 + 3 + 48, report_datasets=1, report_in_domain=1, all=1)
    cmds = commands(paper_dry_run)
    assert {p for _, p, _ in cmds.values()} == {'paper'}
    for name in ('paper', 'paper_fig6_seed-curves', 'paper_dataset-quora-qp_method-augsbert-bm25-ss',
                 'paper_dataset-bws-in-topic_method-augsbert-ss_top_k-18', 'paper_dataset-stsb_max_train_pairs-5749_method-bert',
                 'paper_dataset-mrpc_method-sbert-nlpaug'):
        assert name in cmds
    assert 'gpu=1' in paper_dry_run

@pytest.mark.skipif(importlib.util.find_spec('snakemake_executor_plugin_slurm') is None,
                    reason="snakemake-executor-plugin-slurm is not installed (pip install -e '.[cluster]')")
def test_slurm_profile(tmp_path):
    out = dry_run(tmp_path, '--config', 'grid=paper', '--quiet', 'rules', profile='slurm')
    assert job_stats(out)['run_in_domain'] == 112

def test_finished_runs_are_not_rerun(tmp_path):
    "Outputs newer than their inputs: nothing to do. A rerun run re-renders its report, not the runs after it."
    files = outputs(dry_run(tmp_path))
    assert len(files) == 2 * len(RUN_FILES) + 2 * 2 and all(Path(f).is_absolute() for f in files)
    t = time.time() + 60
    fake_outputs(files, t)   # runs first, reports a minute later, as a finished workflow leaves them
    assert job_stats(dry_run(tmp_path)) == {}
    cell = next(f for f in files if f.endswith(f'/{MAIN_CELL}/metrics.json'))
    os.utime(cell, (t, t + 120))   # the evidence cell ran again: its report is re-rendered, nothing else
    assert job_stats(dry_run(tmp_path)) == dict(report_evidence=1, all=1)

def test_changed_code_reruns_its_runs(tmp_path):
    "Editing a module an experiment reaches (in a copy of the package) reruns that experiment's runs and reports, saying why."
    shutil.copytree(Path(code_digest.__code__.co_filename).parent, tmp_path/'pkg'/'augsbert', ignore=shutil.ignore_patterns('__pycache__'))
    env = dict(PYTHONPATH=str(tmp_path/'pkg'))
    fake_outputs(outputs(dry_run(tmp_path, env=env)), time.time() + 60)
    assert job_stats(dry_run(tmp_path, env=env)) == {}
    with open(tmp_path/'pkg'/'augsbert'/'bm25.py', 'a') as f: f.write('\n# an edit\n')
    out = dry_run(tmp_path, env=env)
    # evidence reaches augsbert.bm25 (through the in-domain method's samplers), datasets does not
    assert job_stats(out) == dict(run_evidence=1, report_evidence=1, all=1)
    assert re.search(r'reason: Updated input files: \S+/cache/workflow/code/evidence-[0-9a-f]{12}\.txt', out)
    assert 'workflow: evidence: its code changed (augsbert.bm25): 1 of its 1 jobs rerun' in out and 'workflow: datasets' not in out
    assert job_stats(dry_run(tmp_path, env=env)) == job_stats(out)     # a dry run leaves them to do

def test_adopted_runs_are_done(tmp_path):
    "adopt_committed: committed runs of the current code or of no recorded code are done whatever their times; runs of other code, or of other settings than their entry's, rerun."
    names = commands(dry_run(tmp_path/'plan', '--config', 'grid=extra'))
    code = {e: code_digest(experiment_path(e)) for e in {e for e, _, _ in names.values()}}
    other, moved = 'cpu_dataset-stsb_method-augsbert-kde', 'cpu_dataset-sts-es_method-sbert'   # other code; made before its entry changed
    for tmp in (tmp_path/'plain', tmp_path/'adopt'):
        for i, (name, (exp, _, args)) in enumerate(names.items()):   # committed an hour ago: older than any code stamp
            made = dict(code[exp], digest='0' * 16) if name == other else code[exp] if i % 2 else None
            files = [tmp/'reports'/'runs'/exp/name/f for f in RUN_FILES]
            fake_outputs(files, time.time() - 3600)
            for f, text in ((files[RUN_FILES.index('provenance.json')], json.dumps(dict(code=made))),
                            (files[RUN_FILES.index('params.json')], json.dumps(dict(dataset='stsb', method='sbert')) if name == moved else '{}')):
                f.write_text(text); os.utime(f, (time.time() - 3600,) * 2)
    assert names[moved][2] == ['dataset=sts-es', 'method=sbert']
    assert job_stats(dry_run(tmp_path/'plain', '--config', 'grid=extra'))['run_in_domain'] == 18   # without it: every run is made once
    out = dry_run(tmp_path/'adopt', '--config', 'grid=extra', 'adopt_committed=true')
    assert {k: v for k, v in job_stats(out).items() if k.startswith('run_')} == dict(run_in_domain=2)
    assert f'--name {other} ' in out and f'--name {moved} ' in out
    assert re.search(r'workflow: adopt_committed: 16 committed runs count as done \(\d+ made by the current code, \d+ made before '
                     r'runs recorded their code digest: adopted as they are\); 1 made by other code and 1 with other settings rerun', out)
    assert f'workflow: in_domain: 1 committed run(s) made with other settings than the grid gives them, made again: {moved} (dataset)' in out

@pytest.mark.parametrize('grid,runs', [('table5-static', 90), ('table5-minilm', 50), ('table5-topk', 20 + 90),
                                       ('table5-fig1', 12), ('table5', 170)])
def test_table5_grids(tmp_path, grid, runs):
    "`make table5`: its parts, each runnable alone (table5-topk includes the cells it follows), and their union."
    out = dry_run(tmp_path, '--config', f'grid={grid}')
    assert job_stats(out)['run_in_domain'] == runs
    cmds = commands(out)
    assert {p for _, p, _ in cmds.values()} == {'cpu'}
    if grid == 'table5':
        ds = {a.split('=')[1] for _, _, args in cmds.values() for a in args if a.startswith('dataset=')}
        assert ds == {'stsb', 'sts-es', 'bws-cross-topic', 'bws-in-topic', 'quora-qp', 'mrpc'}
        for name in ('cpu_dataset-mrpc_method-augsbert-bm25-ss', 'cpu_dataset-quora-qp_method-augsbert-kde_student-static_teacher-bi-encoder',
                     'cpu_dataset-stsb_max_train_pairs-0_method-sbert_student-static', 'cpu_dataset-stsb_method-sbert_repeats-3_seed_optimisation-True',
                     'cpu_dataset-bws-cross-topic_method-augsbert-ss_student-static_teacher-cross-encoder_top_k-18'):
            assert name in cmds, name

def test_table5_adopts_committed_runs(tmp_path):
    "With adopt_committed (make table5) a run committed in reports/runs/ is not made again; without it, every run is."
    for name in ('cpu_dataset-stsb_method-bert', 'cpu_dataset-stsb_method-sbert_student-static'):   # two "committed" runs
        for tmp in (tmp_path/'plain', tmp_path/'adopt'):
            fake_outputs([tmp/'reports'/'runs'/'in_domain'/name/f for f in RUN_FILES], time.time() - 3600)
    plain = job_stats(dry_run(tmp_path/'plain', '--config', 'grid=extra'))['run_in_domain']
    out = dry_run(tmp_path/'adopt', '--config', 'grid=extra', 'adopt_committed=true')
    assert (plain, job_stats(out)['run_in_domain']) == (18, 16)
    assert 'adopt_committed: 2 committed runs count as done (0 made by the current code, 2 made before runs recorded' in out

@pytest.mark.parametrize('grids,message', [
    ("  a: {profile: smoke, include: [b]}\n  b: {profile: smoke, include: [a]}\n", "includes itself"),
    ("  a: {profile: smoke, include: [b]}\n  b: {profile: cpu, experiments: {}}\n", "includes 'b' (profile cpu)"),
    ("  a: {profile: smoke, include: [c]}\n", "no grid 'c'"),
])
def test_include_errors(tmp_path, grids, message):
    cfg = tmp_path/'bad.yaml'
    cfg.write_text("grid: a\ngrids:\n" + grids)
    r = snakemake(tmp_path, '--dry-run', '--configfile', str(cfg))
    assert r.returncode != 0 and message in r.stdout + r.stderr

@pytest.mark.parametrize('entry,message', [
    ("{params: {datset: stsb, method: sbert}}", "'datset' is not a parameter of nbs/experiments/in_domain.ipynb"),
    ("{params: {dataset: stsb, method: sbert}, after: ['{profile}_nope']}", "which the grid does not run"),
])
def test_config_errors(tmp_path, entry, message):
    "A typo in the grid fails when the DAG is built (so in any dry run), naming what is wrong."
    cfg = tmp_path/'bad.yaml'
    cfg.write_text(f"grid: bad\ngrids:\n  bad:\n    profile: smoke\n    experiments:\n      in_domain:\n"
                   f"        resources: {{mem_mb: 1000, runtime: 5}}\n        runs:\n          - {entry}\n")
    r = snakemake(tmp_path, '--dry-run', '--configfile', str(cfg))
    assert r.returncode != 0 and message in r.stdout + r.stderr

TINY = """\
grid: tiny
grids:
  tiny:
    profile: smoke
    experiments:
      datasets:
        threads: 1
        resources: {mem_mb: 2000, runtime: 10}
        runs:
          - name: "{profile}"
            params: {evaluation_sets: []}
    reports:
      datasets:
        experiments: [datasets]
        params: {run_name: "{profile}"}
"""

@pytest.mark.slow
@needs_data
def test_tiny_grid_end_to_end(tmp_path):
    "One real papermill job and its report through Snakemake; the second invocation has nothing to do."
    (tmp_path/'tiny.yaml').write_text(TINY)
    r = snakemake(tmp_path, '--cores', '2', '--configfile', str(tmp_path/'tiny.yaml'))
    assert r.returncode == 0, r.stdout + r.stderr
    run = tmp_path/'reports'/'runs'/'datasets'/'smoke'
    assert all((run/f).exists() for f in ('executed.ipynb', 'params.json', 'metrics.json', 'provenance.json'))
    assert (tmp_path/'reports'/'datasets.md').exists()
    assert (tmp_path/'cache'/'workflow'/'logs'/'datasets'/'smoke.log').exists()
    code = json.loads((run/'provenance.json').read_text())['code']     # the code the DAG's stamp names
    assert code == code_digest(experiment_path('datasets'))
    assert (tmp_path/'cache'/'workflow'/'code'/f"datasets-{code['digest'][:12]}.txt").exists()
    for more in ((), ('--config', 'adopt_committed=true')):
        again = snakemake(tmp_path, '--cores', '2', '--configfile', str(tmp_path/'tiny.yaml'), *more)
        assert again.returncode == 0 and 'Nothing to be done' in again.stdout + again.stderr

def test_augcse_grids(tmp_path):
    "`make augcse`: the core comparison alone (`augcse-core`) and with the ablations; each renders the ablations report."
    core = commands(dry_run(tmp_path, '--config', 'grid=augcse-core'))
    assert {n: a for n, (e, p, a) in core.items()} == {
        'cpu_augcse_variant-simcse_seeds-5': ['seeds=5', 'augcse_variant=simcse'],                 # the claims: 5 seeds
        'cpu_augcse_alpha--1.0_augcse_variant-augcse_seeds-5': ['seeds=5', 'augcse_variant=augcse', 'augcse_alpha=-1.0'],
        'cpu_augcse_alpha-1.0_augcse_variant-augcse_seeds-5': ['seeds=5', 'augcse_variant=augcse', 'augcse_alpha=1.0']}
    out = dry_run(tmp_path, '--config', 'grid=augcse')
    assert job_stats(out) == dict(run_augcse=16, report_ablations=1, all=1)
    args = [a for _, _, a in commands(out).values()]
    assert sorted(x for a in args for x in a if x.startswith('augcse_alpha')) == \
        ['augcse_alpha=-1.0', 'augcse_alpha=-10.0', 'augcse_alpha=-100.0', 'augcse_alpha=1.0', 'augcse_alpha=10.0', 'augcse_alpha=100.0']
    assert ['student=minilm-cut', 'augcse_variant=augcse'] in args and 'augsbert report ablations -p profile=cpu' in out

def test_arguebert_pretrain_grid(tmp_path):
    "`make arguebert-pretrain`: four objectives x two settings, one papermill run each."
    out = dry_run(tmp_path, '--config', 'grid=arguebert-pretrain')
    assert job_stats(out) == dict(run_arguebert_pretrain=8, all=1)
    args = sorted(tuple(a) for _, _, a in commands(out).values())
    assert ('ab_setting=continued', 'ab_objective=sp') in args and ('ab_setting=scratch', 'ab_objective=nsp') in args

def test_arguebert_grid(tmp_path):
    "`make arguebert`: the pre-training grid, 11 encoders fine-tuned, the AugSBERT combination, one report over both experiments."
    out = dry_run(tmp_path, '--config', 'grid=arguebert')
    assert job_stats(out) == dict(run_arguebert_pretrain=8, run_arguebert=11, run_in_domain=4, report_arguebert=1, all=1)
    args = [tuple(a) for _, _, a in commands(out).values()]
    assert ('encoder=arguebert', 'ab_setting=continued', 'ab_objective=sp') in args and ('encoder=avg-tokens',) in args
    assert ('dataset=bws-cross-topic', 'method=augsbert-bm25', 'student=arguebert', 'ab_setting=continued', 'ab_objective=sp') in args
    assert 'augsbert report arguebert -p profile=cpu' in out

def test_contexts_grids(tmp_path):
    "`make contexts`: the core run (Origin, Surrogate, supervised) and 8 ablation runs; the core grid alone is one run."
    assert job_stats(dry_run(tmp_path, '--config', 'grid=contexts-core')) == dict(run_contexts=1, report_contexts=1, all=1)
    out = dry_run(tmp_path, '--config', 'grid=contexts')
    assert job_stats(out) == dict(run_contexts=9, report_contexts=1, all=1)
    args = [tuple(a) for _, _, a in commands(out).values()]
    assert ('origin_only=True', 'ctx_selection=random') in args and ('seeds=5', 'ctx_surrogate_student=static') in args
    runs = commands(out)
    assert runs['cpu'][2] == ['seeds=5'] and runs['cpu_ctx_surrogate_student-static'][2] == ['seeds=5', 'ctx_surrogate_student=static']   # 5 seeds, the names as before
    assert ('ctx_surrogate_pairs=1000',) in args and ('origin_only=True', 'ctx_candidates=100', 'ctx_size=100') in args
