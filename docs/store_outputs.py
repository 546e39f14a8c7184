"""Execute the library notebooks (and the tour) in place so they keep their outputs, as documentation that reads
on a code host and in `make docs` (which does not execute anything).

Kept: results and figures a reader should see. Dropped: stderr (warnings, progress bars) and any output larger
than `--max-chars` characters of text (or `--max-kb` of image), so the notebooks stay small. Run by
`make outputs`; then `nbdev-clean` normalises the files.

    python docs/store_outputs.py [NOTEBOOK ...]     # default: nbs/*.ipynb and the lessons (not experiments or reports)
"""
import argparse, json, os, subprocess, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

def small(out:dict, max_chars:int, max_kb:int)->bool:
    "Whether an output is worth keeping: not stderr, and not too large."
    if out.get('output_type') == 'stream': return out.get('name') == 'stdout' and len(''.join(out.get('text', ''))) <= max_chars
    if out.get('output_type') == 'error': return True
    data = out.get('data', {})
    if 'image/png' in data: return len(data['image/png']) <= max_kb * 1024 * 4 / 3
    text = ''.join(data.get('text/html') or data.get('text/plain') or '')
    return len(text) <= max_chars

def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('notebooks', nargs='*')
    p.add_argument('--max-chars', type=int, default=4000)
    p.add_argument('--max-kb', type=int, default=200)
    p.add_argument('--timeout', type=int, default=1200)
    a = p.parse_args(argv)
    nbs = [Path(n) for n in a.notebooks] or sorted((ROOT/'nbs').glob('*.ipynb')) + sorted((ROOT/'nbs'/'lessons').glob('*.ipynb'))
    env = dict(os.environ, TQDM_DISABLE='1', TRANSFORMERS_VERBOSITY='error', HF_HUB_DISABLE_PROGRESS_BARS='1')
    env.pop('MPLBACKEND', None)                      # the inline backend, so that figures are kept
    jupyter = Path(sys.executable).parent/'jupyter'
    for nb in nbs:
        print(f"executing {nb}", flush=True)
        subprocess.run([str(jupyter), 'nbconvert', '--to', 'notebook', '--execute', '--inplace',
                        f'--ExecutePreprocessor.timeout={a.timeout}', nb.name], cwd=nb.parent, env=env, check=True,
                       stderr=subprocess.DEVNULL)
        d = json.loads(nb.read_text(encoding='utf-8'))
        for c in d['cells']:
            if c['cell_type'] == 'code':
                c['outputs'] = [o for o in c.get('outputs', []) if small(o, a.max_chars, a.max_kb)]
                for o in c['outputs']:
                    if 'execution_count' in o: o['execution_count'] = None
        nb.write_text(json.dumps(d, indent=1, ensure_ascii=False) + '\n', encoding='utf-8')

if __name__ == '__main__': main()
