package policy

import "testing"

// writtenByPath: a file the script wrote and runs by its path is read as
// code of the interpreter its #! line names (directly or through env),
// as if it ran that interpreter on the file, not as a command named
// after the file.
var writtenByPath = []classTest{
	{"python-by-path", "printf '#!/usr/bin/env python3\\nimport shutil, os\\nshutil.rmtree(os.path.expanduser(\"~\"))\\n' > x.py; chmod +x x.py; ./x.py", Deny},
	{"python-by-path", "printf '#!/usr/bin/python3\\nimport shutil, os\\nshutil.rmtree(os.path.expanduser(\"~\"))\\n' > tool && chmod 755 tool && ./tool", Deny},
	{"env-options", "printf '#!/usr/bin/env -S node --no-warnings\\nrequire(\"child_process\").execSync(\"rm -rf ~\")\\n' > t.js; chmod +x t.js; ./t.js", Deny},
	{"perl-flags", "printf '#!/usr/bin/perl -w\\nsystem(\"rm -rf ~\");\\n' > c.pl && chmod +x c.pl && ./c.pl", Deny},
	{"run-parts-python", "mkdir -p /tmp/h && printf '#!/usr/bin/env python3\\nimport shutil, os\\nshutil.rmtree(os.path.expanduser(\"~\"))\\n' > /tmp/h/x && chmod +x /tmp/h/x && run-parts /tmp/h", Deny},
	{"python-by-path", "printf '#!/usr/bin/env python3\\nprint(\"hello\")\\n' > hello.py; chmod +x hello.py; ./hello.py", Allow},
	{"shell-by-path", "printf '#!/bin/sh\\necho built\\n' > b.sh && chmod +x b.sh && ./b.sh", Allow},
	{"shell-by-path", "printf '#!/bin/bash\\nrm -rf ~\\n' > b.sh && chmod +x b.sh && ./b.sh", Deny},
}

func TestWrittenByPath(t *testing.T) { checkClasses(t, writtenByPath) }
