"""The ladder report (issue 33) renders from `static-ladder` runs: each rung against the one it builds on, paired and
Holm-corrected; the best static student chosen on dev, and the `in_domain` command that re-makes it; with no run yet it
says how to make them."""
import json, re, shlex
from conftest import needs_data
from augsbert.config import reports_dir
from augsbert.cli import _kv
from augsbert.runs import run_experiment, render_report, read_json

pytestmark = needs_data


def test_ladder_report_from_two_rungs(env, tiny):
    render_report('ladder', progress=False, profile='smoke')
    assert 'No ladder run is committed for this profile yet' in (reports_dir()/'ladder.md').read_text()
    kw = dict(profile='smoke', progress=False, dataset='sts-es', teacher_model=tiny, student='static', static_init='tokens',
              max_train_pairs=32, seeds=2, teacher_search=False, strategies='bm25', controls='', n_boot=200)
    run_experiment('evidence', run_name='smoke_stsb_static-ladder_1-minilm-cross-encoder', **kw)
    run_experiment('evidence', run_name='smoke_stsb_static-ladder_1-mpnet-cross-encoder', student_loss='cosent', **kw)
    render_report('ladder', progress=False, profile='smoke')
    md = (reports_dir()/'ladder.md').read_text()
    assert '`1-mpnet-cross-encoder` − `1-minilm-cross-encoder`:' in md and 'The best static student on dev is rung' in md
    from augsbert.config import project_root   # the throughput benchmark on each kind of machine it ran on is named in the verdict
    others = sorted((project_root()/'benchmarks'/'results').glob('throughput_stsb_*.json'))
    assert others and all(f"; `benchmarks/results/{f.name}`, the same benchmark) it encodes at" in md for f in others)
    swept = [f for f in others + [others[0].parent/'throughput_stsb.json']    # a batch-size sweep: each model at its best batch size too
             if 'best' in (json.loads(f.read_text())['models'].get('static (MiniLM tokens)') or {})]   # the student here
    assert md.count("With each model at its best batch size of the benchmark's sweep (the student at ") == len(swept)
    # the speed target, every measurement: a row per benchmark file and tokenizer setting, one more for each swept best batch size
    speed = md.split('**The speed target, every measurement**', 1)[1].split('## The ladder', 1)[0]
    rows = [[c.strip() for c in l.strip('| \n').split('|')] for l in speed.splitlines() if l.startswith('| ') and '.json' in l]
    student = 'static (MiniLM tokens)'
    want = [(f.name, 1 + ('best' in x)) for f in [others[0].parent/'throughput_stsb.json'] + others
            for x in [json.loads(f.read_text())['models'].get(k) for k in (student, student + ', tokenizer on 1 thread')] if x]
    assert len(rows) == sum(n for _, n in want) and {r[1] for r in rows} == {f for f, _ in want}
    assert all(r[-1] == ('holds' if float(r[-2]) >= 100 else 'falls short') for r in rows)
    unrun = md.split('**Not run yet** (rungs of grid `static-ladder` with no committed run): ', 1)[1].split('\n', 1)[0]
    assert '`1-mpnet-bi-encoder` (teacher: gold-tuned MPNet bi-encoder)' in unrun and '`1-minilm-cross-encoder`' not in unrun
    assert (reports_dir()/'figures'/'ladder_speed_quality.png').exists()
    assert 'No committed `in_domain` run has re-made it yet' in md
    assert "No MPNet bar: the chosen rung's teacher is not the MPNet bi-encoder." in md      # a tiny cross-encoder taught here
    # the recipe printed by the report, run as it is: the same student (cache key), so the report says it is reproduced
    cmd = shlex.split(re.search(r'```bash\n(.*?)\n```', md).group(1))
    assert cmd[:5] == ['.venv/bin/augsbert', 'run', 'in_domain', '--profile', 'smoke']
    params = _kv(cmd[6::2])
    assert {'teacher_model', 'static_init', 'seeds', 'seed_optimisation', 'max_train_pairs'} <= set(params) and params['seeds'] == 1
    out = run_experiment('in_domain', profile='smoke', progress=False, run_name='smoke_stsb_static-best', **params)
    render_report('ladder', progress=False, profile='smoke')
    md = (reports_dir()/'ladder.md').read_text()
    assert '**Reproduced (generated).** Run `in_domain/smoke_stsb_static-best`' in md
    card = read_json(read_json(out/'metrics.json')['per_seed'][0]['model']['path'] + '/augsbert.json')
    assert card['student'] == 'static' and card['teacher']['kind'] == 'cross-encoder' and card['silver']['pairs'] > 0
    # re-made by newer code: another cache key, the same test score -> still a reproduction; another score -> none
    m = read_json(out/'metrics.json'); s0 = m['per_seed'][0]
    (out/'metrics.json').write_text(json.dumps(dict(m, per_seed=[dict(s0, model=dict(s0['model'], key='0' * 16))])))
    render_report('ladder', progress=False, profile='smoke')
    assert 'from newer code (cache key `0000000000000000`' in (reports_dir()/'ladder.md').read_text()
    (out/'metrics.json').write_text(json.dumps(dict(m, per_seed=[dict(s0, model=dict(s0['model'], key='0' * 16), test=s0['test'] + 1)])))
    render_report('ladder', progress=False, profile='smoke')
    md = (reports_dir()/'ladder.md').read_text()   # the same recipe and seed with other numbers: said, not counted
    assert 'No committed `in_domain` run has reproduced it yet' in md
    assert '`in_domain/smoke_stsb_static-best` (code `' in md and 'beyond the 0.01-point tolerance, so it is not counted as a reproduction' in md
    # the final recipe on another data set: one row per data set beside the chosen rung's, Holm-corrected across them
    assert 'across 1 data set(s)' in md and 'Not run yet: stsb, bws-cross-topic' in md
    run_experiment('evidence', run_name='smoke_sts-es_static-final', **kw)
    render_report('ladder', progress=False, profile='smoke')
    md = (reports_dir()/'ladder.md').read_text()
    final = md.split('## The final recipe on six data sets', 1)[1].split('## Quality against speed', 1)[0]
    assert 'across 2 data set(s)' in final and final.count('| sts-es ') == 2 and 'p_holm' in final
    assert (reports_dir()/'figures'/'ladder_final_recipe.png').exists()
    # a final run whose settings differ from the chosen rung's says so (here the rungs differ in their loss)
    chosen = re.search(r'The best static student on dev is rung `([^`]+)`', md).group(1)
    from augsbert.config import get_profile
    assert (f"student_loss={get_profile('smoke').get('student_loss')}, the profile's (chosen: cosent)" in final) == (chosen == '1-mpnet-cross-encoder')
    assert final.count('as chosen') == (1 if chosen == '1-mpnet-cross-encoder' else 2)
    # the quality target is judged at the mean, and the verdict says whether the whole CI clears it too
    from augsbert.runs import load_runs
    ladder = [r for r in load_runs('evidence') if '_static-ladder_' in r['name']]
    for lo, words in ((76.0, 'The whole 95 % CI lies above 75.'), (74.0, 'The mean clears 75, but the 95 % CI reaches below it (74.00).')):
        for r in ladder:
            m = read_json(r['dir']/'metrics.json')
            for v, s in m['statistics']['scores'].items():
                if v.startswith('augsbert-'): s.update(mean=80.0, lo=lo, hi=84.0)
            (r['dir']/'metrics.json').write_text(json.dumps(m))
        render_report('ladder', progress=False, profile='smoke')
        assert words in (reports_dir()/'ladder.md').read_text()
    # a rung timed on another kind of machine than the MiniLM-L6 bar is left out of the speed comparison, and named
    import shutil
    one = next(r for r in ladder if r['name'].endswith('1-minilm-cross-encoder'))
    bar = one['dir'].parent/'smoke_stsb_static-ladder_ref-minilm'
    shutil.copytree(one['dir'], bar)
    prov = read_json(bar/'provenance.json')
    prov['environment'] = dict(prov['environment'], cpu='Another CPU', cpu_count=2, cpu_isa=['avx2'])
    (bar/'provenance.json').write_text(json.dumps(prov))
    render_report('ladder', progress=False, profile='smoke')
    md = (reports_dir()/'ladder.md').read_text()
    assert 'Timed on another kind of machine than the MiniLM-L6 bar (Another CPU, 2 cores, avx2)' in md
    assert '`1-mpnet-cross-encoder` (' in md.split('Timed on another kind of machine', 1)[1].split('\n', 1)[0]
