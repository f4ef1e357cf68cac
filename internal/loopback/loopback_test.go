package loopback

import "testing"

// TestURL: loopback hosts over http or https, and nothing else.
func TestURL(t *testing.T) {
	t.Parallel()
	for u, want := range map[string]bool{
		"http://127.0.0.1:8080/":         true,
		"http://127.5.6.7/":              true,
		"http://[::1]:9/x":               true,
		"http://localhost:3000":          true,
		"https://sheets.googleapis.com/": false,
		"http://127.0.0.1.example.org/":  false,
		"http://10.0.0.1/":               false,
		"http://[::ffff:8.8.8.8]/":       false,
		"https://localhost:8443/":        true,
		"htptp://127.0.0.1:1/auth":       false,
		"file://localhost/etc/passwd":    false,
		"//127.0.0.1/no-scheme":          false,
		"::not a url":                    false,
		"":                               false,
	} {
		if got := URL(u); got != want {
			t.Errorf("URL(%q) = %v, want %v", u, got, want)
		}
	}
}
