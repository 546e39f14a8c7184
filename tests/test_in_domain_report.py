"""The in-domain report on the committed runs, copied and edited: Figure 1 draws each cross-encoder apart."""
import json, shutil
from pathlib import Path
import pytest
from augsbert.runs import render_report

RUNS = Path(__file__).parents[1]/'reports'/'runs'
SIZES = (250, 1000)

def _with_mpnet(tmp_path, monkeypatch, one_seed_at=None, isa=None):
    "The committed STSb runs at 250 and 1,000 pairs copied, with an 'MPNet' cross-encoder (the MiniLM one + 10); the report rendered."
    names = [f'cpu_dataset-stsb_max_train_pairs-{n}_method-{m}' for n in SIZES for m in ('bert', 'sbert_student-static')]
    if not all((RUNS/'in_domain'/n/'metrics.json').exists() for n in names) or not (RUNS/'datasets'/'cpu').exists():
        pytest.skip('needs the committed STSb runs at 250 and 1,000 gold pairs and the datasets run')
    dst = tmp_path/'reports'/'runs'
    shutil.copytree(RUNS/'datasets'/'cpu', dst/'datasets'/'cpu')
    for n in names: shutil.copytree(RUNS/'in_domain'/n, dst/'in_domain'/n)
    for n in SIZES:   # the MPNet cross-encoder: a copy of the MiniLM one, 10 points up; its name sorts before the MiniLM run's
        src, other = dst/'in_domain'/f'cpu_dataset-stsb_max_train_pairs-{n}_method-bert', dst/'in_domain'/f'cpu_cross_encoder-mpnet_{n}'
        shutil.copytree(src, other)
        p = json.loads((other/'params.json').read_text()); p['cross_encoder'] = 'sentence-transformers/all-mpnet-base-v2'
        m = json.loads((other/'metrics.json').read_text())
        for s in m['per_seed']:
            s['test'] += 10
            if n == 250: s['seed'] += 100    # at 250 pairs no seed in common with the student: said, not a traceback
        m['test_mean'] += 10
        if n == one_seed_at:                  # one seed, as grid teachers-fig1 trains on all pairs: 1.5 h of run time
            m['per_seed'] = m['per_seed'][:1]
            prov = json.loads((other/'provenance.json').read_text()); prov['wall_seconds'] = 5400.0
            (other/'provenance.json').write_text(json.dumps(prov))
        if isa:                               # the machine's instruction sets, per size (made on different CPUs)
            prov = json.loads((other/'provenance.json').read_text()); prov['environment']['cpu_isa'] = isa[n]
            (other/'provenance.json').write_text(json.dumps(prov))
        (other/'params.json').write_text(json.dumps(p)); (other/'metrics.json').write_text(json.dumps(m))
    monkeypatch.setenv('AUGSBERT_REPORTS', str(tmp_path/'reports'))
    return dst, (Path(render_report('in_domain', progress=False, profile='cpu')).parent/'in_domain.md').read_text()

def test_figure_1_keeps_each_cross_encoder_apart(tmp_path, monkeypatch):
    "A second cross-encoder (grid teachers-fig1's MPNet) gets its own line and its own gaps; Table 5 keeps the profile's."
    dst, md = _with_mpnet(tmp_path, monkeypatch)
    mini = json.loads((dst/'in_domain'/'cpu_dataset-stsb_max_train_pairs-1000_method-bert'/'metrics.json').read_text())['test_mean']
    stat = json.loads((dst/'in_domain'/'cpu_dataset-stsb_max_train_pairs-1000_method-sbert_student-static'/'metrics.json').read_text())['test_mean']
    line = next(l for l in md.splitlines() if l.startswith('|   1000 |'))
    assert f'{mini:.2f}' in line and f'{mini + 10:.2f}' in line           # both cross-encoders in the curve table
    assert 'cross-encoder (all-MiniLM-L6-v2) ' in md and 'cross-encoder (all-mpnet-base-v2)' in md
    for ce, gap in (('all-MiniLM-L6-v2', mini - stat), ('all-mpnet-base-v2', mini + 10 - stat)):
        finding = next(l for l in md.splitlines() if l.startswith(f'- **Figure 1** (STSb, cross-encoder ({ce}) vs the static'))
        assert f'{gap:+.2f} [' in finding and 'at 1,000' in finding        # the gap, with its interval
    mp = next(l for l in md.splitlines() if l.startswith('- **Figure 1** (STSb, cross-encoder (all-mpnet-base-v2) vs the static'))
    assert 'not paired (no seed in common) at 250' in mp
    assert 'Machines of the cross-encoder points' not in md              # every point of each line from one kind of machine

def test_figure_1_names_the_machines_when_a_line_mixes_them(tmp_path, monkeypatch):
    _, md = _with_mpnet(tmp_path, monkeypatch, isa={250: ['avx2'], 1000: ['avx2', 'avx512f']})
    line = next(l for l in md.splitlines() if l.startswith('Machines of the cross-encoder points'))
    assert 'cross-encoder (all-mpnet-base-v2): 250 pairs on ' in line and ', avx2; 1,000 pairs on ' in line and 'avx2/avx512f.' in line, line
    assert 'all-MiniLM-L6-v2' not in line and 'CPU kernels' in line     # its points share a machine; the measurement is named

def test_a_cross_encoder_with_one_seed_says_why_it_has_no_interval(tmp_path, monkeypatch):
    _, md = _with_mpnet(tmp_path, monkeypatch, one_seed_at=1000)
    mp = next(l for l in md.splitlines() if l.startswith('- **Figure 1** (STSb, cross-encoder (all-mpnet-base-v2) vs the static'))
    assert '(one seed) at 1,000' in mp and 'At 1,000 the cross-encoder has one seed (1.5 h of run time' in mp, mp
    assert 'one seed where a seed takes over an hour' in mp
    mini = next(l for l in md.splitlines() if l.startswith('- **Figure 1** (STSb, cross-encoder (all-MiniLM-L6-v2) vs the static'))
    assert 'has one seed' not in mini                                    # the other cross-encoder has its seeds
