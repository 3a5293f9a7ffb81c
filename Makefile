# stockade: the two set-up commands are `make demo` and `make test`.
GO        ?= go
BIN       := bin/stockade
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
# Fuzz targets run briefly in `make test` (after their seeds and saved corpus
# in go test), longer in `make fuzz`. Budgets are counts of inputs, not
# durations: with a duration, Go 1.26's fuzzer can fail a target with a bare
# "context deadline exceeded" when the deadline meets a busy worker
# (golang/go#75804), which a loaded CI machine makes likely.
FUZZTIME  ?= 200000x

.PHONY: build demo test lint bench fuzz cross test-kernels clean

build:
	CGO_ENABLED=0 $(GO) build -trimpath -o $(BIN) ./cmd/stockade

demo: build
	./scripts/demo.sh $(BIN)

# The whole suite. .ci/run calls exactly this.
# GORACE: a race-enabled binary sleeps 1 s at exit by default, and the sandbox
# tests start a fresh copy of theirs for every attack.
test: lint
	GORACE=atexit_sleep_ms=0 CGO_ENABLED=1 $(GO) test -race -count=1 -timeout 12m ./...
	# The analysis's memory budget, which the race detector's own allocations hide.
	$(GO) test -count=1 -run '^TestAnalysisBudget$$' ./policy/
	$(MAKE) --no-print-directory fuzz FUZZTIME=10000x

lint:
	@out=$$(gofmt -s -l .); if [ -n "$$out" ]; then echo "gofmt -s needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...

bench: build
	./scripts/bench.sh

fuzz:
	@for t in $$(grep -rhoE '^func Fuzz[A-Za-z0-9_]+' --include=*_test.go . | sed 's/func //' | sort -u); do \
		pkg=$$(grep -rlE "^func $$t\(" --include=*_test.go . | head -1 | xargs dirname); \
		echo "fuzz $$pkg $$t ($(FUZZTIME))"; \
		$(GO) test -run '^$$' -fuzz "^$$t\$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	done

# The kernel matrix: boots Debian kernels under qemu (TCG) and runs the sandbox
# tests inside each; see kernels/README.md. KERNELS_FLAGS go to kernels/runner.
test-kernels:
	./kernels/test.sh $(KERNELS_FLAGS)

# Every target is tried, so one run names all that fail. The packages and their
# tests are vetted for the other systems too, so a test file that only builds on
# Linux is caught here.
cross:
	@failed=; for t in linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 freebsd/amd64; do \
		echo "build $$t"; \
		CGO_ENABLED=0 GOOS=$${t%/*} GOARCH=$${t#*/} $(GO) build -o /dev/null ./cmd/stockade || failed="$$failed $$t"; \
	done; \
	for os in darwin windows freebsd; do \
		echo "vet $$os (tests included)"; \
		CGO_ENABLED=0 GOOS=$$os $(GO) vet ./... || failed="$$failed vet-$$os"; \
	done; \
	if [ -n "$$failed" ]; then echo "cross: failed:$$failed"; exit 1; fi

clean:
	rm -rf bin dist
