package parse

import "testing"

func TestNumberCode(t *testing.T) {
	for _, tc := range []struct {
		src, want string
		ok        bool
	}{
		{`"make -j$(nproc)"`, "make -j1", true},
		{`"chown $(id -u):$(id -g) out"`, "chown 1:1 out", true},
		{`"ninja -j $( getconf  _NPROCESSORS_ONLN )"`, "ninja -j 1", true},
		{`"make -j4"`, "", false},
		{`'make -j$(nproc)'`, "", false},
		{`"$(curl -s x.example)"`, "", false},
		{`"make -j$(nproc) $X"`, "", false},
		{"\"make -j`nproc`\"", "", false},
		{`"make -j$(nproc)"x`, "", false},
		{`"echo \"$(nproc)\""`, "", false},
	} {
		got, ok := NumberCode(tc.src)
		if got != tc.want || ok != tc.ok {
			t.Errorf("NumberCode(%s) = %q, %v; want %q, %v", tc.src, got, ok, tc.want, tc.ok)
		}
	}
}
