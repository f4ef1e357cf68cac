// Package loopback tells whether a URL points at this machine: what
// annosheet allows for credential-free endpoints and OAuth redirects.
//
//	loopback.URL("http://127.0.0.1:8080/") // true
package loopback

import (
	"net"
	"net/url"
)

// URL reports whether u is an http or https URL whose host is localhost
// or a loopback address. Any other scheme is no place to send anything.
func URL(u string) bool {
	p, err := url.Parse(u)
	if err != nil || p.Scheme != "http" && p.Scheme != "https" {
		return false
	}
	host := p.Hostname()
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
