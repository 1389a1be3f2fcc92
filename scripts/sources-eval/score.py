#!/usr/bin/env python3
"""Score `sandbox-audit inventory --sources` on real open-source iOS apps.

The measurement set is apps.json beside this script: for each app a pinned
commit, its bundle id and App Groups, and the container paths its code
writes, each with the source line that names it (read by hand from the
app's code at that commit), plus framework-owned paths that no app line
names. The truth comes only from apps.json; nothing is taken from the tool
but the candidates it prints.

For each app the script gets the source at the commit (a --checkouts
folder, a cached copy, a local bare mirror, or a git clone), builds a
Simulator-style container holding every path as a small placeholder file or
folder, runs `sandbox-audit inventory … --sources SRC`, and scores:

  recall     app-written paths whose true line is among the candidates
  precision  app-written paths whose first candidate is a true line,
             among those that got at least one candidate
  clean      framework-owned paths with no candidate

Usage:
  score.py --bin PATH/sandbox-audit [--apps FILE] [--checkouts DIR]
           [--only NAME] [--json] [--keep DIR] [-v]
  score.py --list
  score.py --bin PATH --check-containers   (builds and lists, no --sources)

Exit status: 0 after any run (a skipped app is reported, not fatal); 2 on a
usage error, or when the binary does not know --sources.
Python 3 standard library only.
"""

import argparse
import glob
import json
import os
import plistlib
import shutil
import subprocess
import sys
import tempfile
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_APPS = os.path.join(HERE, "apps.json")
DEFAULT_CACHE = os.path.join(os.path.expanduser("~"), ".cache", "sandbox-audit-sources-eval")
DEFAULT_MIRRORS = os.environ.get("SOURCES_EVAL_MIRRORS", "/work/.mirror")
OBJC_EXTENSIONS = (".m", ".mm", ".h")
PLACEHOLDER = b"sandbox-audit sources-eval placeholder\n"
KEEP_STAMP = ".sources-eval-container"
BAR = {"apps": 5, "paths": 50, "recall": 0.8, "precision": 0.95, "clean": 0.9}
# A blob this large is no source file; skipping it keeps extraction quick.
MAX_BLOB = 4 * 1024 * 1024


class UsageError(Exception):
    pass


def log(message):
    print(message, file=sys.stderr, flush=True)


# ---------------------------------------------------------------- the set

def load_apps(path):
    try:
        with open(path, encoding="utf-8") as handle:
            apps = json.load(handle)
    except (OSError, ValueError) as error:
        raise UsageError(f"cannot read {path}: {error}")
    if not isinstance(apps, list) or not apps:
        raise UsageError(f"{path}: expected a non-empty JSON array of apps")
    names = set()
    for app in apps:
        where = f"{path}: app {app.get('name', '?')!r}"
        for key in ("name", "repository", "url", "commit", "languages", "bundleId", "appGroups", "paths"):
            if key not in app:
                raise UsageError(f"{where}: missing {key!r}")
        if app["name"] in names:
            raise UsageError(f"{where}: duplicate name")
        names.add(app["name"])
        seen = set()
        for entry in app["paths"]:
            for key in ("path", "base", "kind", "truth"):
                if key not in entry:
                    raise UsageError(f"{where}: a path lacks {key!r}")
            base = entry["base"]
            if base != "home" and not (base.startswith("appGroup:") and base[9:] in app["appGroups"]):
                raise UsageError(f"{where}: {entry['path']}: base {base!r} is neither home nor one of its appGroups")
            if entry["kind"] not in ("file", "directory"):
                raise UsageError(f"{where}: {entry['path']}: kind must be file or directory")
            rel = entry["path"]
            if rel.startswith("/") or ".." in rel.split("/") or rel != os.path.normpath(rel):
                raise UsageError(f"{where}: {rel!r} is not a clean relative path")
            if (base, rel) in seen:
                raise UsageError(f"{where}: {rel} listed twice")
            seen.add((base, rel))
            truth = entry["truth"]
            if truth is not None:
                if not isinstance(truth.get("file"), str) or not isinstance(truth.get("line"), int) or truth["line"] < 1:
                    raise UsageError(f"{where}: {rel}: truth needs a file and a 1-based line")
    return apps


def true_lines(truth):
    """The (file, line) pairs accepted for a path: the line and its `also`."""
    lines = {(truth["file"], truth["line"])}
    for other in truth.get("also", []):
        if isinstance(other, int):
            lines.add((truth["file"], other))
        else:
            lines.add((other["file"], other["line"]))
    return lines


def counts(app):
    app_paths = [p for p in app["paths"] if p["truth"] is not None]
    objc = [p for p in app_paths if p["truth"]["file"].endswith(OBJC_EXTENSIONS)]
    return len(app_paths), len(objc), len(app["paths"]) - len(app_paths)


def domain_of(app, base):
    if base == "home":
        return "AppDomain-" + app["bundleId"]
    return "AppDomainGroup-" + base[len("appGroup:"):]


def slug(app):
    return app["repository"].replace("/", "+")


# ---------------------------------------------------------------- sources

def git(args, **kwargs):
    env = dict(os.environ, GIT_TERMINAL_PROMPT="0", GIT_ASKPASS="true")
    return subprocess.run(["git"] + args, env=env, **kwargs)


def is_git_dir(path):
    try:
        result = git(["--git-dir", path, "rev-parse", "--git-dir"], capture_output=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return result.returncode == 0


def has_commit(git_dir, commit):
    try:
        result = git(["--git-dir", git_dir, "cat-file", "-e", commit + "^{commit}"], capture_output=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return result.returncode == 0


def extract_commit(git_dir, commit, dest):
    """Write every blob of COMMIT's tree under DEST, without a work tree.

    Bare mirrors may lack their largest blobs, so `git archive` can fail
    part-way; this reads blob by blob and leaves missing ones out.
    Returns (files written, blobs missing or skipped).
    """
    listing = git(["--git-dir", git_dir, "ls-tree", "-r", "-z", "--full-tree", "-l", commit],
                  capture_output=True, timeout=600)
    if listing.returncode != 0:
        raise RuntimeError(listing.stderr.decode("utf-8", "replace").strip() or "git ls-tree failed")
    wanted = []
    skipped = 0
    for record in listing.stdout.split(b"\0"):
        if not record:
            continue
        meta, _, name = record.partition(b"\t")
        mode, kind, sha, size = meta.split()
        if kind != b"blob" or mode == b"120000":
            continue
        rel = name.decode("utf-8", "surrogateescape")
        parts = rel.split("/")
        if rel.startswith("/") or ".." in parts or "" in parts:
            skipped += 1
            continue
        if size.isdigit() and int(size) > MAX_BLOB:  # "-" or "BAD" (a missing blob): cat-file decides
            skipped += 1
            continue
        wanted.append((sha.decode(), rel))
    with tempfile.TemporaryFile() as shas:
        shas.write("".join(sha + "\n" for sha, _ in wanted).encode())
        shas.seek(0)
        proc = subprocess.Popen(["git", "--git-dir", git_dir, "cat-file", "--batch"], stdin=shas,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        written = 0
        stream = proc.stdout
        for sha, rel in wanted:
            header = stream.readline().decode("ascii", "replace").split()
            if len(header) < 2:
                break
            if header[1] == "missing":
                skipped += 1
                continue
            data = stream.read(int(header[2]))
            stream.read(1)
            target = os.path.join(dest, rel)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "wb") as out:
                out.write(data)
            written += 1
        stream.close()
        proc.wait()
    return written, skipped


def mirror_candidates(app, mirrors):
    base = os.path.join(mirrors, slug(app))
    found = []
    if os.path.isdir(base):
        for path in [base] + sorted(glob.glob(os.path.join(base, "*"))):
            if os.path.isdir(path) and is_git_dir(path):
                found.append(path)
    return found


def obtain_source(app, args):
    """Return (source folder, how) or (None, why not)."""
    commit = app["commit"]
    if args.checkouts:
        path = os.path.join(args.checkouts, slug(app))
        if os.path.isdir(path):
            return path, f"checkout {path}"
    cached = os.path.join(args.cache, f"{slug(app)}@{commit[:12]}")
    if os.path.isfile(os.path.join(cached, ".sources-eval-complete")):
        return cached, f"cache {cached}"
    reasons = []
    for mirror in mirror_candidates(app, args.mirrors):
        if not has_commit(mirror, commit):
            reasons.append(f"mirror {mirror} lacks commit {commit[:12]}")
            continue
        work = cached + ".partial"
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
        try:
            written, skipped = extract_commit(mirror, commit, work)
        except (OSError, RuntimeError, ValueError) as error:
            reasons.append(f"mirror {mirror}: {error}")
            shutil.rmtree(work, ignore_errors=True)
            continue
        with open(os.path.join(work, ".sources-eval-complete"), "w") as stamp:
            stamp.write(f"{app['repository']} {commit} from {mirror}: {written} files, {skipped} blobs left out\n")
        shutil.rmtree(cached, ignore_errors=True)
        os.rename(work, cached)
        return cached, f"mirror {mirror} ({written} files, {skipped} blobs left out)"
    if args.no_clone:
        reasons.append("cloning turned off (--no-clone)")
    else:
        clone = cached + ".clone"
        shutil.rmtree(clone, ignore_errors=True)
        try:
            log(f"{app['name']}: cloning {app['url']} …")
            result = git(["clone", "--quiet", "--no-checkout", app["url"], clone], capture_output=True, timeout=3600)
            if result.returncode != 0:
                lines = result.stderr.decode("utf-8", "replace").strip().splitlines()
                fatal = [line for line in lines if line.startswith("fatal:")]
                raise RuntimeError((fatal or lines or ["git clone failed"])[0])
            if not has_commit(os.path.join(clone, ".git"), commit):
                git(["-C", clone, "fetch", "--quiet", "origin", commit], capture_output=True, timeout=1800)
            if not has_commit(os.path.join(clone, ".git"), commit):
                raise RuntimeError(f"commit {commit[:12]} is not in {app['url']} (a mirror's commit ids may differ from GitHub's; "
                                   f"look for {app.get('commitDate', '?')} {app.get('commitSubject', '')!r})")
            result = git(["-C", clone, "checkout", "--quiet", commit], capture_output=True, timeout=1800)
            if result.returncode != 0:
                raise RuntimeError("git checkout failed")
            with open(os.path.join(clone, ".sources-eval-complete"), "w") as stamp:
                stamp.write(f"{app['repository']} {commit} cloned from {app['url']}\n")
            shutil.rmtree(cached, ignore_errors=True)
            os.rename(clone, cached)
            return cached, f"clone of {app['url']}"
        except (OSError, RuntimeError, subprocess.TimeoutExpired) as error:
            reasons.append(f"clone of {app['url']}: {error.args[0] if error.args else error}")
            shutil.rmtree(clone, ignore_errors=True)
    if not reasons:
        reasons.append(f"no checkout, cache or mirror ({os.path.join(args.mirrors, slug(app))})")
    return None, "; ".join(reasons)


def check_truth_lines(app, source):
    """Every truth line must exist in the source and hold its `text`: this
    catches a checkout at the wrong commit. Returns a list of problems."""
    problems = []
    cache = {}
    checked = set()
    for entry in app["paths"]:
        truth = entry["truth"]
        if truth is None or (truth["file"], truth["line"]) in checked:
            continue
        checked.add((truth["file"], truth["line"]))
        name = truth["file"]
        if name not in cache:
            try:
                with open(os.path.join(source, name), encoding="utf-8", errors="replace") as handle:
                    cache[name] = handle.read().split("\n")
            except OSError:
                cache[name] = None
        lines = cache[name]
        if lines is None:
            problems.append(f"{name} is missing")
        elif truth["line"] > len(lines):
            problems.append(f"{name} has {len(lines)} lines, not {truth['line']}")
        elif truth.get("text") and truth["text"] not in lines[truth["line"] - 1]:
            problems.append(f"{name}:{truth['line']} does not contain {truth['text']!r}")
    return problems


# ---------------------------------------------------------------- containers

def metadata_plist(folder, identifier, content_class, container_uuid):
    with open(os.path.join(folder, ".com.apple.mobile_container_manager.metadata.plist"), "wb") as handle:
        plistlib.dump({
            "MCMMetadataContentClass": content_class,
            "MCMMetadataIdentifier": identifier,
            "MCMMetadataSchemaVersion": 1,
            "MCMMetadataUUID": container_uuid,
        }, handle)


def place(root, rel, kind):
    target = os.path.join(root, rel)
    parent = os.path.dirname(target)
    if os.path.isfile(parent):
        raise UsageError(f"{rel}: a parent is listed as a file")
    os.makedirs(parent, exist_ok=True)
    if kind == "directory":
        os.makedirs(target, exist_ok=True)
    else:
        if os.path.isdir(target):
            raise UsageError(f"{rel}: listed as a file and as a parent folder")
        with open(target, "wb") as handle:
            handle.write(PLACEHOLDER)


def build_container(app, root):
    """Lay out the app's paths under ROOT; return (scan target, extra args)."""
    def stable_uuid(what):
        return str(uuid.uuid5(uuid.NAMESPACE_URL, f"sandbox-audit-sources-eval:{app['name']}:{what}")).upper()

    groups_used = sorted({p["base"][9:] for p in app["paths"] if p["base"] != "home"})
    if groups_used:
        containers = os.path.join(root, "device", "data", "Containers")
        home = os.path.join(containers, "Data", "Application", stable_uuid("app"))
        target, extra = os.path.join(root, "device"), ["--app", app["bundleId"]]
        group_roots = {}
        for group in groups_used:
            group_uuid = stable_uuid("group:" + group)
            group_roots[group] = os.path.join(containers, "Shared", "AppGroup", group_uuid)
            os.makedirs(group_roots[group])
            metadata_plist(group_roots[group], group, 7, group_uuid)
            extra += ["--app-group", group]
    else:
        home = os.path.join(root, stable_uuid("app"))
        target, extra, group_roots = home, [], {}
    os.makedirs(home)
    metadata_plist(home, app["bundleId"], 2, os.path.basename(home))
    for standard in ("Documents", "Library/Caches", "Library/Preferences", "tmp"):
        os.makedirs(os.path.join(home, standard), exist_ok=True)
    for entry in app["paths"]:
        base = home if entry["base"] == "home" else group_roots[entry["base"][9:]]
        place(base, entry["path"], entry["kind"])
    return target, extra


def run_inventory(binary, target, extra, source):
    command = [binary, "inventory", target] + extra + ["--allow-incomplete"]
    if source is not None:
        command += ["--sources", source]
    try:
        result = subprocess.run(command, capture_output=True, timeout=3600)
    except (OSError, subprocess.TimeoutExpired) as error:
        return None, f"{' '.join(command[:3])}: {error}"
    if result.returncode not in (0, 1):
        message = result.stderr.decode("utf-8", "replace").strip().splitlines()
        return None, f"inventory exited {result.returncode}: {message[-1] if message else '(no message)'}"
    entries = {}
    for line in result.stdout.decode("utf-8", "replace").splitlines():
        line = line.strip()
        if not line:
            continue
        try:
            entry = json.loads(line)
        except ValueError:
            return None, f"inventory printed a line that is not JSON: {line[:80]}"
        entries[(entry.get("domain"), entry.get("path"))] = entry
    return entries, None


def knows_sources(binary):
    try:
        result = subprocess.run([binary, "inventory", "--help"], capture_output=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise UsageError(f"cannot run {binary}: {error}")
    return b"--sources" in result.stdout + result.stderr


# ---------------------------------------------------------------- scoring

def normalise_candidate(candidate, source):
    if not isinstance(candidate, dict):
        return None
    name, line = candidate.get("file"), candidate.get("line")
    if not isinstance(name, str) or not isinstance(line, int):
        return None
    if os.path.isabs(name):
        real_source = os.path.realpath(source)
        name = os.path.relpath(os.path.realpath(name), real_source)
    return os.path.normpath(name).replace(os.sep, "/"), line


def score_app(app, entries, source):
    outcomes = []
    saw_source_field = False
    for entry in app["paths"]:
        domain = domain_of(app, entry["base"])
        found = entries.get((domain, entry["path"]))
        outcome = {"path": entry["path"], "domain": domain, "truth": entry["truth"], "note": entry.get("note")}
        if found is None:
            outcome.update(result="missing", candidates=[])
            outcomes.append(outcome)
            continue
        if "source" in found:
            saw_source_field = True
        raw = found.get("source") or []
        candidates = [c for c in (normalise_candidate(c, source) for c in raw) if c is not None]
        outcome["candidates"] = [{"file": f, "line": l} for f, l in candidates]
        if entry["truth"] is None:
            outcome["result"] = "clean" if not candidates else "named"
        else:
            accepted = true_lines(entry["truth"])
            outcome["hit"] = any(c in accepted for c in candidates)
            outcome["firstOk"] = bool(candidates) and candidates[0] in accepted
            if not candidates:
                outcome["result"] = "none"
            elif outcome["firstOk"]:
                outcome["result"] = "first"
            elif outcome["hit"]:
                outcome["result"] = "listed"
            else:
                outcome["result"] = "wrong"
        outcomes.append(outcome)
    return outcomes, saw_source_field


def tally(outcomes):
    app_rows = [o for o in outcomes if o["truth"] is not None]
    objc_rows = [o for o in app_rows if o["truth"]["file"].endswith(OBJC_EXTENSIONS)]
    framework = [o for o in outcomes if o["truth"] is None]
    with_candidates = [o for o in app_rows if o.get("candidates")]
    t = {
        "appPaths": len(app_rows),
        "hits": sum(1 for o in app_rows if o.get("hit")),
        "withCandidates": len(with_candidates),
        "firstOk": sum(1 for o in with_candidates if o.get("firstOk")),
        "objcPaths": len(objc_rows),
        "objcHits": sum(1 for o in objc_rows if o.get("hit")),
        "frameworkPaths": len(framework),
        "frameworkClean": sum(1 for o in framework if o["result"] == "clean"),
        "missing": sum(1 for o in outcomes if o["result"] == "missing"),
    }
    return finish(t)


def finish(t):
    def ratio(a, b):
        return round(a / b, 4) if b else None
    t["recall"] = ratio(t["hits"], t["appPaths"])
    t["precision"] = ratio(t["firstOk"], t["withCandidates"])
    t["objcRecall"] = ratio(t["objcHits"], t["objcPaths"])
    t["cleanRate"] = ratio(t["frameworkClean"], t["frameworkPaths"])
    return t


def add_up(tallies):
    keys = ("appPaths", "hits", "withCandidates", "firstOk", "objcPaths", "objcHits", "frameworkPaths", "frameworkClean", "missing")
    return finish({k: sum(t[k] for t in tallies) for k in keys})


def fmt(value):
    return "  -  " if value is None else f"{value:.3f}"


def describe(outcome):
    truth = outcome["truth"]
    first = outcome["candidates"][0] if outcome.get("candidates") else None
    first_text = f"{first['file']}:{first['line']}" if first else "(none)"
    if truth is None:
        return f"  framework path named: {outcome['domain']} {outcome['path']} -> {first_text}"
    wanted = f"{truth['file']}:{truth['line']}"
    label = {"missing": "not in inventory", "none": "no candidate", "wrong": "true line not listed",
             "listed": "true line listed, not first", "first": "ok"}[outcome["result"]]
    return f"  {label}: {outcome['domain']} {outcome['path']}\n      truth {wanted}; first {first_text}"


# ---------------------------------------------------------------- commands

def command_list(apps, as_json):
    rows = []
    for app in apps:
        n_app, n_objc, n_fw = counts(app)
        rows.append({"name": app["name"], "repository": app["repository"], "url": app["url"], "commit": app["commit"],
                     "languages": app["languages"], "appPaths": n_app, "objcPaths": n_objc, "frameworkPaths": n_fw,
                     "appGroups": app["appGroups"]})
    if as_json:
        print(json.dumps({"apps": rows}, indent=1))
        return
    print(f"{'app':<14} {'repository':<32} {'commit':<12} {'languages':<11} {'app':>4} {'objc':>5} {'fw':>4}  groups")
    for r in rows:
        print(f"{r['name']:<14} {r['repository']:<32} {r['commit'][:12]:<12} {','.join(r['languages']):<11} "
              f"{r['appPaths']:>4} {r['objcPaths']:>5} {r['frameworkPaths']:>4}  {' '.join(r['appGroups']) or '-'}")
    print(f"{'total':<14} {len(rows)} apps{'':<45} {sum(r['appPaths'] for r in rows):>4} "
          f"{sum(r['objcPaths'] for r in rows):>5} {sum(r['frameworkPaths'] for r in rows):>4}")


def container_root(args, app, temp):
    if not args.keep:
        return os.path.join(temp, slug(app))
    root = os.path.join(args.keep, slug(app))
    if os.path.exists(root):
        if not os.path.isfile(os.path.join(root, KEEP_STAMP)):
            raise UsageError(f"{root} exists and was not made by this script; remove it or choose another --keep")
        shutil.rmtree(root)
    os.makedirs(root)
    with open(os.path.join(root, KEEP_STAMP), "w") as stamp:
        stamp.write(f"built by scripts/sources-eval/score.py for {app['name']} at {app['commit']}\n")
    return root


def command_check_containers(apps, args):
    """Build each container and check that inventory (without --sources)
    lists every path of the set in its domain."""
    report = []
    with tempfile.TemporaryDirectory(prefix="sources-eval-") as temp:
        for app in apps:
            root = container_root(args, app, temp)
            target, extra = build_container(app, root)
            entries, error = run_inventory(args.bin, target, extra, None)
            if error:
                report.append({"name": app["name"], "error": error})
                continue
            missing = [f"{domain_of(app, p['base'])} {p['path']}" for p in app["paths"]
                       if (domain_of(app, p["base"]), p["path"]) not in entries]
            wrong_kind = [f"{p['path']} ({entries[(domain_of(app, p['base']), p['path'])].get('kind')})" for p in app["paths"]
                          if (domain_of(app, p["base"]), p["path"]) in entries
                          and entries[(domain_of(app, p["base"]), p["path"])].get("kind") != p["kind"]]
            report.append({"name": app["name"], "target": target if args.keep else None, "paths": len(app["paths"]),
                           "listed": len(app["paths"]) - len(missing), "missing": missing, "wrongKind": wrong_kind,
                           "domains": sorted({d for d, _ in entries})})
    if args.json:
        print(json.dumps({"containers": report}, indent=1))
        return
    for r in report:
        if "error" in r:
            print(f"{r['name']}: ERROR {r['error']}")
            continue
        print(f"{r['name']}: {r['listed']}/{r['paths']} paths listed in their domain; domains {', '.join(r['domains'])}"
              + (f"; kept at {r['target']}" if r["target"] else ""))
        for m in r["missing"]:
            print(f"  missing: {m}")
        for w in r["wrongKind"]:
            print(f"  other kind: {w}")


def score_one(app, args, temp, result):
    source, how = obtain_source(app, args)
    if source is None:
        result.update(status="skipped", reason=how)
        return
    result["sourceFrom"] = how
    problems = check_truth_lines(app, source)
    if problems:
        more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
        result.update(status="skipped", reason="the source is not the pinned commit: " + "; ".join(problems[:3]) + more)
        return
    root = container_root(args, app, temp)
    target, extra = build_container(app, root)
    entries, error = run_inventory(args.bin, target, extra, source)
    if error:
        result.update(status="error", reason=error)
        return
    outcomes, saw_field = score_app(app, entries, source)
    result.update(status="scored", outcomes=outcomes, tally=tally(outcomes), sourceField=saw_field)


def command_score(apps, args):
    if not knows_sources(args.bin):
        print(f"{args.bin} does not know --sources yet (inventory --help does not list it); nothing to score.")
        return 2
    results = []
    with tempfile.TemporaryDirectory(prefix="sources-eval-") as temp:
        for app in apps:
            result = {"name": app["name"], "repository": app["repository"], "commit": app["commit"]}
            results.append(result)
            try:
                score_one(app, args, temp, result)
            except UsageError:
                raise
            except Exception as error:  # one app's failure must not stop the others
                result.update(status="error", reason=f"{type(error).__name__}: {error}")
    scored = [r for r in results if r["status"] == "scored"]
    totals = add_up([r["tally"] for r in scored]) if scored else None
    languages = set()
    for app in apps:
        if any(r["name"] == app["name"] for r in scored):
            languages.update(app["languages"])
    bar = None
    if totals:
        bar = {
            "apps": len(scored) >= BAR["apps"],
            "paths": totals["appPaths"] >= BAR["paths"],
            "swiftAndObjc": totals["objcPaths"] > 0 and totals["appPaths"] > totals["objcPaths"],
            "recall": (totals["recall"] or 0) >= BAR["recall"],
            "precision": (totals["precision"] or 0) >= BAR["precision"],
            "clean": (totals["cleanRate"] or 0) >= BAR["clean"],
        }
        bar["met"] = all(bar.values())
    if args.json:
        print(json.dumps({"binary": args.bin, "apps": results, "totals": totals, "bar": bar}, indent=1))
        return 0
    header = (f"{'app':<14} {'commit':<12} {'paths':>5} {'hit':>4} {'recall':>6} {'cand':>5} {'first':>5} "
              f"{'precis':>6} {'objc':>5} {'o-rec':>6} {'fw':>3} {'clean':>5} {'c-rate':>6} {'miss':>4}")
    print(header)
    for r in results:
        if r["status"] != "scored":
            print(f"{r['name']:<14} {r['commit'][:12]:<12} {r['status'].upper()}: {r['reason']}")
            continue
        t = r["tally"]
        print(f"{r['name']:<14} {r['commit'][:12]:<12} {t['appPaths']:>5} {t['hits']:>4} {fmt(t['recall']):>6} "
              f"{t['withCandidates']:>5} {t['firstOk']:>5} {fmt(t['precision']):>6} {t['objcPaths']:>5} "
              f"{fmt(t['objcRecall']):>6} {t['frameworkPaths']:>3} {t['frameworkClean']:>5} {fmt(t['cleanRate']):>6} {t['missing']:>4}")
    if totals:
        t = totals
        print(f"{'total':<14} {str(len(scored)) + ' apps':<12} {t['appPaths']:>5} {t['hits']:>4} {fmt(t['recall']):>6} "
              f"{t['withCandidates']:>5} {t['firstOk']:>5} {fmt(t['precision']):>6} {t['objcPaths']:>5} "
              f"{fmt(t['objcRecall']):>6} {t['frameworkPaths']:>3} {t['frameworkClean']:>5} {fmt(t['cleanRate']):>6} {t['missing']:>4}")
        print(f"bar (>= {BAR['apps']} apps, >= {BAR['paths']} paths, Swift and ObjC, recall >= {BAR['recall']}, "
              f"precision >= {BAR['precision']}, clean >= {BAR['clean']}): {'met' if bar['met'] else 'not met'}"
              + ("" if bar["met"] else " (" + ", ".join(k for k, v in bar.items() if k != "met" and not v) + ")"))
    for r in scored:
        if not r["sourceField"]:
            print(f"{r['name']}: no inventory line carried a source field")
        shown = [o for o in r["outcomes"] if args.verbose or o["result"] not in ("first", "clean")]
        if shown:
            print(f"{r['name']} ({r['sourceFrom']}):")
            for o in shown:
                print(describe(o))
    return 0


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", help="the sandbox-audit binary")
    parser.add_argument("--apps", default=DEFAULT_APPS, help="the measurement set (default: apps.json beside this script)")
    parser.add_argument("--checkouts", help="a folder of checkouts named OWNER+NAME, each at its pinned commit")
    parser.add_argument("--cache", default=DEFAULT_CACHE, help=f"where sources are extracted or cloned (default {DEFAULT_CACHE})")
    parser.add_argument("--mirrors", default=DEFAULT_MIRRORS,
                        help=f"a folder of bare mirrors OWNER+NAME/* (default {DEFAULT_MIRRORS}, or $SOURCES_EVAL_MIRRORS)")
    parser.add_argument("--no-clone", action="store_true", help="never clone; use checkouts, the cache and mirrors only")
    parser.add_argument("--only", action="append", help="score only this app (name or OWNER/NAME); repeatable")
    parser.add_argument("--list", action="store_true", help="print the set (apps, commits, counts) and exit")
    parser.add_argument("--check-containers", action="store_true",
                        help="build the containers and check that inventory without --sources lists every path")
    parser.add_argument("--keep", help="build the containers under this folder and keep them")
    parser.add_argument("--json", action="store_true", help="print JSON instead of tables")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every path's outcome, not only the failures")
    args = parser.parse_args(argv)
    try:
        apps = load_apps(args.apps)
        if args.only:
            wanted = {w.lower() for w in args.only}
            unknown = wanted - {a["name"].lower() for a in apps} - {a["repository"].lower() for a in apps}
            if unknown:
                raise UsageError(f"--only: no app named {', '.join(sorted(unknown))}")
            apps = [a for a in apps if a["name"].lower() in wanted or a["repository"].lower() in wanted]
        if args.list:
            command_list(apps, args.json)
            return 0
        if not args.bin:
            raise UsageError("--bin PATH/sandbox-audit is required (or --list)")
        if not (os.path.isfile(args.bin) and os.access(args.bin, os.X_OK)):
            raise UsageError(f"{args.bin} is not an executable file")
        args.bin = os.path.abspath(args.bin)
        if args.keep:
            args.keep = os.path.abspath(args.keep)
            os.makedirs(args.keep, exist_ok=True)
        if args.checkouts:
            args.checkouts = os.path.abspath(args.checkouts)
        os.makedirs(args.cache, exist_ok=True)
        if args.check_containers:
            command_check_containers(apps, args)
            return 0
        return command_score(apps, args)
    except UsageError as error:
        print(f"score.py: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
