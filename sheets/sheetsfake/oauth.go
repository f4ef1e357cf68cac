package sheetsfake

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/annosheet/annosheet/internal/loopback"
)

// The OAuth endpoints of the fake, enough for an installed app (the
// authorization code flow with PKCE and a loopback redirect, refresh,
// revoke) and a service account (a signed JWT exchanged for a token).
// Access tokens live an hour by the fake's clock, as Google's do.

// FakeUser is who a user token signs in as.
const FakeUser = "coordinator@example.org"

// principal is who makes a call.
type principal struct {
	email          string
	serviceAccount bool
	// scopes are those of the access token the call came with; scoped
	// is false for a call the fake lets through without a token of its
	// own (RequireAuth off), which no scope limits.
	scopes []string
	scoped bool
}

// may reports whether the caller's token has a scope the method accepts,
// as the method's discovery document lists them: a token for Sheets alone
// (auth/spreadsheets) does not reach Drive, a read-only one cannot write.
func (who principal) may(d *Discovery, path ...string) bool {
	accepted := d.scopes(path...)
	if !who.scoped || accepted == nil {
		return true
	}
	return slices.ContainsFunc(who.scopes, func(sc string) bool { return slices.Contains(accepted, sc) })
}

// errScopes is Google's answer to a token without a scope the method
// accepts.
const errScopes = "Request had insufficient authentication scopes."

type authCode struct {
	clientID, redirect, challenge, scope string
}

type grant struct {
	clientID, scope string
	revoked         bool
}

type accessToken struct {
	who     principal
	scope   string
	expiry  time.Time
	refresh string // the grant it came from; "" for service accounts
}

// authState is what the fake's OAuth server remembers. The Server's mutex
// guards it.
type authState struct {
	codes   map[string]*authCode
	grants  map[string]*grant
	access  map[string]*accessToken
	keys    map[string]*rsa.PublicKey // service account email → its key
	ttl     time.Duration
	refresh int // refresh_token grants answered
}

func newAuthState() *authState {
	return &authState{codes: map[string]*authCode{}, grants: map[string]*grant{}, access: map[string]*accessToken{}, keys: map[string]*rsa.PublicKey{}, ttl: time.Hour}
}

func randomToken(prefix string) string {
	b := make([]byte, 24)
	rand.Read(b)
	return prefix + base64.RawURLEncoding.EncodeToString(b)
}

// caller is who made a request: the holder of its access token, or the
// fake's user when the fake does not require auth and none was sent. A
// refusal gives Google's status and message.
func (s *Server) caller(r *http.Request) (principal, int, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	user := principal{email: FakeUser}
	h := r.Header.Get("Authorization")
	tok, ok := strings.CutPrefix(h, "Bearer ")
	if !ok || tok == "" {
		if s.opt.RequireAuth {
			return user, 401, "Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential."
		}
		return user, 0, ""
	}
	at := s.auth.access[tok]
	switch {
	case at == nil && !s.opt.RequireAuth:
		return user, 0, ""
	case at == nil, !s.Now().Before(at.expiry), at.refresh != "" && s.auth.grants[at.refresh].revoked:
		return user, 401, "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential."
	}
	who := at.who
	who.scopes, who.scoped = strings.Fields(at.scope), true
	return who, 0, ""
}

// ClientSecretJSON is an installed-app client secret file, as the Google
// Cloud console downloads it, for the fake's OAuth client.
func (s *Server) ClientSecretJSON() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, _ := json.MarshalIndent(map[string]any{"installed": map[string]any{
		"client_id":     s.opt.ClientID,
		"client_secret": s.opt.ClientSecret,
		"project_id":    "annosheet-fake",
		"auth_uri":      s.base + "/auth",
		"token_uri":     s.base + "/token",
		"redirect_uris": []string{"http://localhost"},
	}}, "", "  ")
	return b
}

// NewServiceAccountKey makes a service account the fake trusts and
// returns its JSON key file, whose token_uri is the fake's.
func (s *Server) NewServiceAccountKey(email string) ([]byte, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.auth.keys[email] = &key.PublicKey
	return json.MarshalIndent(map[string]string{
		"type":           "service_account",
		"project_id":     "annosheet-fake",
		"private_key_id": "fake-key-1",
		"private_key":    string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
		"client_email":   email,
		"client_id":      "1234567890",
		"auth_uri":       s.base + "/auth",
		"token_uri":      s.base + "/token",
	}, "", "  ")
}

// WriteServiceAccountKey makes a service account the fake trusts and
// writes its key file to path (mode 0600), as the Cloud console gives it.
func (s *Server) WriteServiceAccountKey(path, email string) error {
	key, err := s.NewServiceAccountKey(email)
	if err != nil {
		return err
	}
	return os.WriteFile(path, key, 0o600)
}

// ExpireTokens makes every access token issued so far expired, as an hour
// passing would.
func (s *Server) ExpireTokens() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range s.auth.access {
		t.expiry = time.Time{}
	}
}

// RevokeAll revokes every grant, as a user removing the app's access from
// their Google account does.
func (s *Server) RevokeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, g := range s.auth.grants {
		g.revoked = true
	}
}

// Refreshes is how many refresh_token grants the fake has answered.
func (s *Server) Refreshes() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.auth.refresh
}

func oauthError(w http.ResponseWriter, code int, kind, desc string) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(map[string]string{"error": kind, "error_description": desc})
}

func (s *Server) oauth(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/auth":
		s.authorize(w, r)
	case "/token":
		s.token(w, r)
	case "/revoke":
		s.revoke(w, r)
	}
}

// authorize is the consent screen: the user (a test's simulated browser)
// always consents, and is sent back to the app's loopback redirect with a
// code. What Google would refuse is refused with its error page.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	fail := func(kind, msg string) {
		http.Error(w, "Error 400: "+kind+"\n"+msg, http.StatusBadRequest)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case q.Get("client_id") != s.opt.ClientID:
		fail("invalid_client", "The OAuth client was not found.")
		return
	case q.Get("response_type") != "code":
		fail("unsupported_response_type", "response_type must be code")
		return
	case !loopbackRedirect(q.Get("redirect_uri")):
		fail("redirect_uri_mismatch", "A desktop app must redirect to a loopback address (http://127.0.0.1:PORT).")
		return
	case q.Get("code_challenge") == "" || q.Get("code_challenge_method") != "S256":
		fail("invalid_request", "code_challenge_method must be S256 (PKCE)")
		return
	case q.Get("scope") == "":
		fail("invalid_request", "Missing required parameter: scope")
		return
	}
	code := randomToken("4/fake-code-")
	s.auth.codes[code] = &authCode{clientID: q.Get("client_id"), redirect: q.Get("redirect_uri"), challenge: q.Get("code_challenge"), scope: q.Get("scope")}
	back, _ := url.Parse(q.Get("redirect_uri"))
	v := back.Query()
	v.Set("code", code)
	v.Set("scope", q.Get("scope"))
	if st := q.Get("state"); st != "" {
		v.Set("state", st)
	}
	back.RawQuery = v.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

func loopbackRedirect(u string) bool {
	p, err := url.Parse(u)
	return err == nil && p.Scheme == "http" && loopback.URL(u)
}

func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		oauthError(w, 405, "invalid_request", "POST only")
		return
	}
	if err := r.ParseForm(); err != nil {
		oauthError(w, 400, "invalid_request", err.Error())
		return
	}
	f := r.PostForm
	s.mu.Lock()
	defer s.mu.Unlock()
	issue := func(who principal, scope, refresh string, newRefresh bool) {
		tok := randomToken("ya29.fake-")
		s.auth.access[tok] = &accessToken{who: who, scope: scope, expiry: s.Now().Add(s.auth.ttl), refresh: refresh}
		out := map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": int(s.auth.ttl.Seconds()), "scope": scope}
		if newRefresh {
			out["refresh_token"] = refresh
		}
		writeJSON(w, out)
	}
	switch f.Get("grant_type") {
	case "authorization_code", "refresh_token":
		id, secret, ok := r.BasicAuth()
		if !ok {
			id, secret = f.Get("client_id"), f.Get("client_secret")
		}
		if id != s.opt.ClientID || secret != s.opt.ClientSecret {
			oauthError(w, 401, "invalid_client", "Unauthorized")
			return
		}
		if f.Get("grant_type") == "refresh_token" {
			rt := f.Get("refresh_token")
			g := s.auth.grants[rt]
			if g == nil || g.revoked || g.clientID != id {
				oauthError(w, 400, "invalid_grant", "Token has been expired or revoked.")
				return
			}
			s.auth.refresh++
			issue(principal{email: FakeUser}, g.scope, rt, false)
			return
		}
		c := s.auth.codes[f.Get("code")]
		delete(s.auth.codes, f.Get("code")) // a code is good once
		switch {
		case c == nil || c.clientID != id:
			oauthError(w, 400, "invalid_grant", "Malformed auth code.")
			return
		case c.redirect != f.Get("redirect_uri"):
			oauthError(w, 400, "redirect_uri_mismatch", "Bad Request")
			return
		case pkceChallenge(f.Get("code_verifier")) != c.challenge:
			oauthError(w, 400, "invalid_grant", "Invalid code verifier.")
			return
		}
		rt := randomToken("1//fake-refresh-")
		s.auth.grants[rt] = &grant{clientID: id, scope: c.scope}
		issue(principal{email: FakeUser}, c.scope, rt, true)
	case "urn:ietf:params:oauth:grant-type:jwt-bearer":
		email, scope, err := s.verifyJWT(f.Get("assertion"))
		if err != nil {
			oauthError(w, 400, "invalid_grant", err.Error())
			return
		}
		issue(principal{email: email, serviceAccount: true}, scope, "", false)
	default:
		oauthError(w, 400, "unsupported_grant_type", "Invalid grant_type: "+f.Get("grant_type"))
	}
}

func pkceChallenge(verifier string) string {
	if verifier == "" {
		return "\x00" // matches no challenge
	}
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// verifyJWT checks a service account's signed assertion: RS256 by a key
// the fake issued, for the fake's token endpoint, not expired, and
// living an hour at most.
func (s *Server) verifyJWT(assertion string) (email, scope string, err error) {
	parts := strings.Split(assertion, ".")
	if len(parts) != 3 {
		return "", "", fmt.Errorf("Invalid JWT: not three parts")
	}
	var hdr struct {
		Alg string `json:"alg"`
	}
	var claims struct {
		Iss   string `json:"iss"`
		Scope string `json:"scope"`
		Aud   string `json:"aud"`
		Exp   int64  `json:"exp"`
		Iat   int64  `json:"iat"`
	}
	for i, v := range []any{&hdr, &claims} {
		raw, err := base64.RawURLEncoding.DecodeString(parts[i])
		if err != nil {
			return "", "", fmt.Errorf("Invalid JWT: %v", err)
		}
		if err := json.Unmarshal(raw, v); err != nil {
			return "", "", fmt.Errorf("Invalid JWT: %v", err)
		}
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		return "", "", fmt.Errorf("Invalid JWT Signature.")
	}
	key := s.auth.keys[claims.Iss]
	if hdr.Alg != "RS256" || key == nil {
		return "", "", fmt.Errorf("Invalid JWT Signature.")
	}
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if rsa.VerifyPKCS1v15(key, crypto.SHA256, sum[:], sig) != nil {
		return "", "", fmt.Errorf("Invalid JWT Signature.")
	}
	now := s.Now().Unix()
	switch {
	case claims.Aud != s.base+"/token":
		return "", "", fmt.Errorf("Invalid JWT: audience is %q, not the token endpoint", claims.Aud)
	// Google's rule: an assertion lives an hour at most, and has not
	// expired.
	case claims.Exp < now, claims.Exp-claims.Iat > 3600:
		return "", "", fmt.Errorf("Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.")
	case claims.Scope == "":
		return "", "", fmt.Errorf("Invalid OAuth scope or ID token audience provided.")
	}
	return claims.Iss, claims.Scope, nil
}

// revoke ends a grant (given its refresh token or one of its access
// tokens), as signing out does.
func (s *Server) revoke(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		oauthError(w, 400, "invalid_request", err.Error())
		return
	}
	tok := r.Form.Get("token")
	s.mu.Lock()
	defer s.mu.Unlock()
	if at := s.auth.access[tok]; at != nil {
		if at.refresh == "" {
			delete(s.auth.access, tok)
			writeJSON(w, map[string]any{})
			return
		}
		tok = at.refresh
	}
	g := s.auth.grants[tok]
	if g == nil || g.revoked {
		oauthError(w, 400, "invalid_token", "Token expired or revoked")
		return
	}
	g.revoked = true
	writeJSON(w, map[string]any{})
}
