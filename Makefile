# Shortcuts for scripts/setup.sh and scripts/dist.sh (the README's quick start uses the scripts,
# which need no make).
.PHONY: all build test dist clean-dist
all: build

build:          ## install what the build needs, build, scan sample-containers/Misbehaving
	scripts/setup.sh

test:           ## install what the tests need, run the tests
	scripts/setup.sh test

dist:           ## dist/sandbox-audit-VERSION-OS-ARCH.tar.gz and its .sha256 (this machine's release tarball)
	scripts/dist.sh

clean-dist:
	rm -rf dist
