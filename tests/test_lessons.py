"""The course (`nbs/lessons/`, issue 32): every lesson has its shape, and its exercises check themselves.

An exercise is three consecutive code cells: the exercise (first line `# Exercise K: …`, one function whose body ends
in `return None  # your code here`), its solution (`#| solution`, shown collapsed in the docs) and the check
(`check_…(fn)`, from the lesson's module `augsbert.lessons.<slug>`). Left blank, the check fails with a message that
names the function; with the solution it passes. The lessons themselves run top to bottom in `nbdev-test` at their
tiny size (`IN_TEST`); the slow test runs each at lesson size and requires under five minutes (`make test-slow`).
"""
import importlib, json, os, re, time
from pathlib import Path
import pytest

ROOT = Path(__file__).resolve().parents[1]
LESSONS = sorted((ROOT/'nbs'/'lessons').glob('*.ipynb'))
EXERCISE = re.compile(r'^# Exercise (\d+):')


def _cells(path:Path)->list:
    return [(c['cell_type'], ''.join(c['source'])) for c in json.loads(path.read_text(encoding='utf-8'))['cells']]

def _module(path:Path)->str:
    for kind, src in _cells(path):
        if kind == 'code' and (m := re.match(r'#\|\s*default_exp\s+(\S+)', src)): return f'augsbert.{m.group(1)}'
    raise AssertionError(f'{path.name}: no `#| default_exp lessons.<slug>` cell')

def _exercises(path:Path)->list:
    "(number, exercise, solution, check) sources, in notebook order."
    cs, out = _cells(path), []
    for i, (kind, src) in enumerate(cs):
        if kind == 'code' and (m := EXERCISE.match(src)):
            assert i + 2 < len(cs), f'{path.name}: exercise {m.group(1)} needs a solution and a check cell after it'
            sol, chk = cs[i + 1][1], cs[i + 2][1]
            assert sol.startswith('#| solution'), f'{path.name}: the cell after exercise {m.group(1)} is not its `#| solution`'
            assert 'check_' in chk, f'{path.name}: the cell after the solution of exercise {m.group(1)} is not its check'
            out.append((int(m.group(1)), src, sol, chk))
    return out


def test_the_course_exists():
    assert len(LESSONS) >= 3, 'nbs/lessons/ should hold the course'
    assert (ROOT/'docs'/'index.md').read_text(encoding='utf-8').count('/nbs/lessons/*') == 1   # in the docs' navigation


@pytest.mark.parametrize('path', LESSONS, ids=lambda p: p.stem)
def test_lesson_shape(path):
    cs = _cells(path)
    kind, first = cs[0]
    assert kind == 'markdown' and first.startswith('# Lesson ') and 'Learning goals' in first, \
        f'{path.name}: the first cell is "# Lesson N: title", a summary and the learning goals'
    assert re.search(r'^[0-9]{2}_', path.name), path.name
    assert len(_exercises(path)) >= 2, f'{path.name}: at least two exercises'
    kind, last = cs[-1]
    assert kind == 'markdown' and 'Rerun it bigger' in last and 'augsbert run' in last, \
        f'{path.name}: the last cell gives the `augsbert run …` command that does the same at full scale'
    for kind, src in cs:           # numbers a lesson quotes are generated: no measured decimals typed into its prose
        if kind != 'markdown': continue
        prose = re.sub(r'`[^`]*`', '', re.sub(r'```.*?```', '', src, flags=re.S))
        assert not re.search(r'(?<![\w.])\d+\.\d+(?![\w.])', prose), f'{path.name}: a typed number in prose: {src[:200]!r}'


@pytest.mark.parametrize('path,n,exercise,solution,check',
                         [(p, *e) for p in LESSONS for e in _exercises(p)],
                         ids=lambda v: v.stem if isinstance(v, Path) else (f'ex{v}' if isinstance(v, int) else ''))
def test_exercise_checks_itself(path, n, exercise, solution, check):
    ns = dict(vars(importlib.import_module(_module(path))))
    exec(exercise, ns)                                   # left blank
    fn = [k for k in ns if k not in vars(importlib.import_module(_module(path))) and callable(ns[k])]
    assert len(fn) == 1, f'{path.name}, exercise {n}: the exercise cell defines one function, got {fn}'
    with pytest.raises(AssertionError) as blank:
        exec(check, ns)
    assert fn[0] in str(blank.value), f'{path.name}, exercise {n}: a blank answer should fail with a message naming `{fn[0]}`: {blank.value}'
    exec(solution, ns)                                   # the solution passes its own check
    exec(check, ns)


@pytest.mark.slow
@pytest.mark.parametrize('path', LESSONS, ids=lambda p: p.stem)
def test_lesson_runs_at_lesson_size_in_under_five_minutes(path, monkeypatch):
    import nbformat
    from nbclient import NotebookClient
    monkeypatch.delenv('IN_TEST', raising=False); monkeypatch.setenv('AUGSBERT_LESSON_SIZE', 'lesson')
    monkeypatch.setenv('MPLBACKEND', 'Agg')
    nb = nbformat.read(path, as_version=4)
    t = time.perf_counter()
    NotebookClient(nb, timeout=600, kernel_name='python3', resources={'metadata': {'path': str(path.parent)}}).execute()
    took = time.perf_counter() - t
    print(f'{path.stem}: {took:.0f} s at lesson size ({os.cpu_count()} cores)')
    assert took < 300, f'{path.name} took {took:.0f} s at lesson size; a lesson must run in under five minutes'
