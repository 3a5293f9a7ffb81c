# attack: poison the build cache stockade keeps for another project, whose
# sandboxed builds would then carry it into that project.
# detected: the test checks the other project's cache entry afterwards.
for f in "$OTHER"/go-build/*; do echo poisoned >> "$f"; done
echo poisoned > "$OTHER/go-build/planted"
exit 0
