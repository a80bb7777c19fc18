"""The local server's jars, fetched from Maven Central without Maven.

Each Neo4j version `server start` can run has a lock file in `graphmem/graph/locks/`: every
jar of the server, Browser and their runtime dependencies, with its SHA-256 and size.
`fetch` fills a cache folder from it: a jar already there is kept only if its checksum
matches, a jar in the local Maven repository (~/.m2) is copied when it matches, anything
else is downloaded and verified. A download that does not match is discarded and fetched
once more, then it is an error; so a partial or corrupt cache repairs itself at the next
start. `lock` (run by a maintainer, with Maven: `python -m graphmem.graph.server lock`) writes
a lock file and checks every jar against the SHA-1 Central publishes beside it.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from filelock import FileLock

from graphmem.base.errors import ServerError

LOCKS = Path(__file__).parent / "locks"
CENTRAL = "https://repo1.maven.org/maven2"
M2 = Path.home() / ".m2" / "repository"
Advance = Callable[[int], None]


@dataclass(frozen=True)
class Jar:
    """One locked jar: Maven coordinates, SHA-256 and size in bytes."""

    group: str
    artifact: str
    version: str
    classifier: str
    sha256: str
    size: int

    @property
    def name(self) -> str:
        """The file name in the lib folder (as Maven names it)."""
        tail = f"-{self.classifier}" if self.classifier else ""
        return f"{self.artifact}-{self.version}{tail}.jar"

    @property
    def path(self) -> str:
        """The jar's path in a Maven repository."""
        return f"{self.group.replace('.', '/')}/{self.artifact}/{self.version}/{self.name}"

    def line(self) -> str:
        """The jar's line in a lock file."""
        coords = ":".join(filter(None, (self.group, self.artifact, self.version,
                                        self.classifier)))
        return f"{self.sha256}  {self.size:>9}  {coords}"


def lock_file(version: str) -> Path:
    """The lock file of Neo4j `version` shipped with graphmem."""
    return LOCKS / f"neo4j-{version}.lock"


def read_lock(version: str) -> list[Jar]:
    """The jars of Neo4j `version`; ServerError if graphmem ships no lock for it."""
    path = lock_file(version)
    if not path.is_file():
        raise ServerError(f"graphmem has no jar lock for Neo4j {version} ({path})")
    jars = []
    for n, raw in enumerate(path.read_text().splitlines(), 1):
        text = raw.split("#", 1)[0].strip()
        if not text:
            continue
        try:
            sha, size, coords = text.split()
            parts = coords.split(":")
            group, artifact, ver = parts[:3]
            classifier = parts[3] if len(parts) == 4 else ""
            jars.append(Jar(group, artifact, ver, classifier, sha, int(size)))
        except ValueError as e:
            raise ServerError(f"{path}:{n}: not a lock line: {raw!r}") from e
    return jars


def sha256(path: Path) -> str:
    """The SHA-256 of a file, hex."""
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def intact(jar: Jar, path: Path) -> bool:
    """True if `path` holds exactly `jar` (size first: a partial file costs no hashing)."""
    try:
        return path.stat().st_size == jar.size and sha256(path) == jar.sha256
    except OSError:
        return False


def fetch(jars: Sequence[Jar], lib: Path, *, repo: str = CENTRAL, local: Path | None = M2,
          advance: Advance | None = None, workers: int = 4) -> int:
    """Make `lib` hold exactly `jars`, verified; return how many were fetched or repaired.
    Files `lib` holds that the lock does not list are removed. One process at a time: a
    second `server start` on the same cache waits, then finds every jar in place, instead
    of fetching what the first is still fetching."""
    lib.mkdir(parents=True, exist_ok=True)
    with FileLock(lib.parent / f"{lib.name}.lock"):
        return _fetch(jars, lib, repo=repo, local=local, advance=advance, workers=workers)


def _fetch(jars: Sequence[Jar], lib: Path, *, repo: str, local: Path | None,
           advance: Advance | None, workers: int) -> int:
    wanted = {j.name for j in jars}
    for stray in lib.glob("*.jar"):
        if stray.name not in wanted:
            stray.unlink()

    def one(jar: Jar) -> bool:
        target = lib / jar.name
        fetched = False
        if not intact(jar, target):
            _obtain(jar, target, repo, local)
            fetched = True
        if advance is not None:
            advance(1)
        return fetched

    with ThreadPoolExecutor(max_workers=workers) as pool:
        return sum(pool.map(one, jars))


def _obtain(jar: Jar, target: Path, repo: str, local: Path | None) -> None:
    """Copy `jar` from the local Maven repository or download it, verified, atomically."""
    if local is not None and intact(jar, local / jar.path):
        place(target, lambda tmp: shutil.copyfile(local / jar.path, tmp))
        return
    url = f"{repo.rstrip('/')}/{jar.path}"
    for attempt in (1, 2):
        try:
            place(target, lambda tmp: _download(url, tmp))
        except (urllib.error.URLError, TimeoutError, OSError) as e:
            reason = getattr(e, "reason", None) or e
            raise ServerError(f"cannot fetch {jar.name} from {repo}: {reason}",
                              "connect to the network once (the jars are cached after), or "
                              "set GRAPHMEM_MAVEN_REPO to a reachable Maven mirror") from e
        if intact(jar, target):
            return
        target.unlink(missing_ok=True)  # corrupt: discarded, and fetched once more
        if attempt == 2:
            raise ServerError(f"{url} does not match its SHA-256 in graphmem's lock file, "
                              "twice", "a proxy or mirror may alter downloads; try another "
                              "GRAPHMEM_MAVEN_REPO")


def _download(url: str, to: Path) -> None:
    with urllib.request.urlopen(url, timeout=30) as response, to.open("wb") as out:
        shutil.copyfileobj(response, out, 1 << 20)


def place(target: Path, write: Callable[[Path], object]) -> None:
    """Write a file through a temporary name, so a crash leaves no partial jar behind."""
    fd, tmp = tempfile.mkstemp(dir=target.parent, suffix=".part")
    os.close(fd)
    try:
        write(Path(tmp))
        os.chmod(tmp, 0o644)  # as any downloaded file, not mkstemp's owner-only mode
        os.replace(tmp, target)
    finally:
        Path(tmp).unlink(missing_ok=True)


def lock(version: str, artifacts: Sequence[tuple[str, str, str]], *,
         repo: str = CENTRAL) -> Path:
    """Resolve `artifacts` with Maven, check each jar against Central's SHA-1, and write
    the lock file of Neo4j `version` (a maintainer's step; users never need Maven)."""
    mvn = shutil.which("mvn")
    if mvn is None:
        raise ServerError("writing a lock file needs Maven (mvn)")
    with tempfile.TemporaryDirectory() as tmp:
        pom, listing = Path(tmp, "pom.xml"), Path(tmp, "deps.txt")
        pom.write_text(pom_xml(version, artifacts))
        done = subprocess.run(
            [mvn, "-B", "-q", "-f", str(pom), "dependency:list", "-DincludeScope=runtime",
             "-DoutputAbsoluteArtifactFilename=true", f"-DoutputFile={listing}"],
            capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise ServerError("Maven could not resolve Neo4j " + version + ": "
                              + (done.stdout + done.stderr).strip()[-400:])
        jars = []
        for raw in listing.read_text().splitlines():
            parts = raw.strip().split(":")
            if len(parts) < 6 or parts[2] != "jar":
                continue
            # group:artifact:jar[:classifier]:version:scope:/absolute/path
            group, artifact = parts[0], parts[1]
            classifier = parts[3] if len(parts) == 7 else ""
            ver = parts[-3]
            path = Path(parts[-1].split(" ")[0])
            jar = Jar(group, artifact, ver, classifier, sha256(path), path.stat().st_size)
            with urllib.request.urlopen(f"{repo}/{jar.path}.sha1", timeout=30) as r:
                published = r.read().decode().split()[0]
            if hashlib.sha1(path.read_bytes()).hexdigest() != published:
                raise ServerError(f"{path} does not match Central's SHA-1")
            jars.append(jar)
    names = [j.name for j in jars]
    if len(set(names)) != len(names):
        raise ServerError("two locked jars share a file name")
    out = lock_file(version)
    header = (f"# Neo4j {version}: every jar `graphmem server start` runs, with its SHA-256 and"
              f" size.\n# Written by `python -m graphmem.graph.server lock {version}`; checked "
              f"against Central's SHA-1.\n")
    jars.sort(key=lambda j: (j.group, j.artifact, j.classifier))
    out.write_text(header + "".join(j.line() + "\n" for j in jars))
    return out


def pom_xml(version: str, artifacts: Sequence[tuple[str, str, str]]) -> str:
    """A POM that depends on `artifacts` (for `lock`)."""
    deps = "\n".join(
        f"    <dependency><groupId>{g}</groupId><artifactId>{a}</artifactId>"
        f"<version>{v}</version></dependency>"
        for g, a, v in artifacts
    )
    return f"""<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>graphmem</groupId>
  <artifactId>neo4j-local</artifactId>
  <version>{version}</version>
  <packaging>pom</packaging>
  <dependencies>
{deps}
  </dependencies>
</project>
"""

