# Top-level Makefile: only delegates to CMake (see README.md).
BUILD ?= build
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=RelWithDebInfo
JOBS ?= 2
MAKEFLAGS += --no-print-directory

.PHONY: all deps configure build demo test test-loaded bench install clean
all: build

deps:
	@sh scripts/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD) $(CMAKE_FLAGS) >/dev/null

build: configure
	@cmake --build $(BUILD) -j$(JOBS) -- --no-print-directory

demo: build
	@sh scripts/demo.sh $(BUILD)

test: build
	@# A failing test is run once more: on a loaded 2-core VM a short sampled
	@# run now and then sees too few samples (runtime.*.threads,
	@# docs/runtime.md), and an oversubscribed defect-off run of
	@# late_sender_chain now and then shows a false message_wait (an analysis
	@# flake, not yet fixed); a real failure fails twice.
	@cd $(BUILD) && ctest --output-on-failure -j$(JOBS) --repeat until-pass:2

# Only the verdicts beside two CPU-bound processes of "another user"
# (e2e_loaded, tests/e2e/loaded.py; also part of make test).
test-loaded: build
	@cd $(BUILD) && ctest --output-on-failure -L loaded

bench: build
	@cmake --build $(BUILD) --target bench

# make install PREFIX=/opt/scalana [DESTDIR=/tmp/stage]: installs the build into
# PREFIX (default: CMAKE_INSTALL_PREFIX, /usr/local); the installation is
# relocatable (docs/install.md).
install: build
	@$(if $(DESTDIR),DESTDIR=$(DESTDIR)) cmake --install $(BUILD) $(if $(PREFIX),--prefix $(PREFIX))

clean:
	@rm -rf $(BUILD)
