# attack: poison the user's own build caches (Go, npm, pip, cargo, Maven,
# Gradle), which builds run outside the sandbox read later.
# detected: the test compares the fake HOME afterwards.
for d in .cache/go-build/ab .npm/_cacache/content-v2 go/pkg/mod/cache/download .cache/pip/wheels .cargo/registry/cache .m2/repository .gradle/caches; do
	mkdir -p "$HOME/$d" && echo poisoned > "$HOME/$d/poison"
done
exit 0
