// Package loopback tells whether a URL points at this machine: what
// annosheet allows for credential-free endpoints and OAuth redirects.
//
//	loopback.URL("http://127.0.0.1:8080/") // true
package loopback

import (
	"net"
	"net/url"
)

// URL reports whether u's host is localhost or a loopback address.
func URL(u string) bool {
	p, err := url.Parse(u)
	if err != nil {
		return false
	}
	host := p.Hostname()
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
