package sheetsfake

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Quota is the per-minute request quotas the fake enforces, as Google
// documents them: Sheets API read and write requests a minute per user
// and per project, Drive API requests a minute per user. A limit of 0 is
// no limit, so the zero Quota (the default) enforces none: most tests
// make many calls quickly and are not about quotas.
//
// A Sheets request over its quota is answered 429 RESOURCE_EXHAUSTED
// ("Quota exceeded for quota metric 'Write requests' and limit 'Write
// requests per minute per user' ..."), without Retry-After, as Google
// answers; a Drive request over its quota 403 userRateLimitExceeded, as
// Drive answers. Refused requests do not count against the quota.
// Minutes are those of the fake's clock (Options.Now), so that a test
// with a simulated clock spends no real time waiting for one.
type Quota struct {
	// Reads and Writes are the Sheets API requests one user may make in a
	// minute (Google: 60 each). Reads are calls that only read (get,
	// values.get, values.batchGet, the getByDataFilter and search
	// methods); every other Sheets call, spreadsheets.create and
	// batchUpdate among them, is a write.
	Reads, Writes int
	// ProjectReads and ProjectWrites are the same for all users together
	// (Google: 300 each).
	ProjectReads, ProjectWrites int
	// Drive is the Drive API requests one user may make in a minute
	// (Google: 12,000).
	Drive int
	// Rolling counts the requests of any 60 seconds rather than those of
	// each whole minute of the clock. Google says its quotas are
	// "refilled every minute"; the rolling count is the stricter reading,
	// which a client must meet too if it is never to be refused.
	Rolling bool
}

// GoogleQuota is the quota Google documents for a project that has not
// asked for more: 60 read and 60 write requests a minute per user, 300 of
// each per project, 12,000 Drive requests a minute per user.
func GoogleQuota() Quota {
	return Quota{Reads: 60, Writes: 60, ProjectReads: 300, ProjectWrites: 300, Drive: 12000}
}

// metric is what a request counts against.
type metric int

const (
	readRequests metric = iota
	writeRequests
	driveRequests
)

// metricOf classes an API call by its method and path, as Google's
// quotas do; ok is false for what no quota counts.
func metricOf(method, path string) (m metric, ok bool) {
	switch {
	case strings.HasPrefix(path, "/drive/"), strings.HasPrefix(path, "/upload/drive/"):
		return driveRequests, true
	case strings.HasPrefix(path, "/v4/spreadsheets"):
		if method == http.MethodGet || strings.HasSuffix(path, "ByDataFilter") || strings.HasSuffix(path, ":search") {
			return readRequests, true
		}
		return writeRequests, true
	}
	return 0, false
}

// counterKey names one count: a metric for one user, or for the whole
// project when user is "".
type counterKey struct {
	m    metric
	user string
}

// quotaState is what the fake counts for its quota.
type quotaState struct {
	// seen holds, by count, the times of the requests let through in the
	// current window, oldest first.
	seen    map[counterKey][]time.Time
	refused int
}

// limit is a count's limit and how Google names it.
type limit struct {
	key       counterKey
	max       int
	metric    string // "Write requests"
	name      string // "Write requests per minute per user"
	id        string // "WriteRequestsPerMinutePerUser"
	metricID  string // "sheets.googleapis.com/write_requests"
	driveKind bool
}

func (s *Server) limits(m metric, user string) []limit {
	q := s.opt.Quota
	switch m {
	case readRequests:
		return []limit{
			{key: counterKey{m, user}, max: q.Reads, metric: "Read requests", name: "Read requests per minute per user", id: "ReadRequestsPerMinutePerUser", metricID: "sheets.googleapis.com/read_requests"},
			{key: counterKey{m, ""}, max: q.ProjectReads, metric: "Read requests", name: "Read requests per minute", id: "ReadRequestsPerMinutePerProject", metricID: "sheets.googleapis.com/read_requests"},
		}
	case writeRequests:
		return []limit{
			{key: counterKey{m, user}, max: q.Writes, metric: "Write requests", name: "Write requests per minute per user", id: "WriteRequestsPerMinutePerUser", metricID: "sheets.googleapis.com/write_requests"},
			{key: counterKey{m, ""}, max: q.ProjectWrites, metric: "Write requests", name: "Write requests per minute", id: "WriteRequestsPerMinutePerProject", metricID: "sheets.googleapis.com/write_requests"},
		}
	}
	return []limit{{key: counterKey{m, user}, max: q.Drive, driveKind: true}}
}

// overQuota counts a call against its quota, or answers it as Google
// does when the quota is spent and reports that it did.
func (s *Server) overQuota(w http.ResponseWriter, method, path string, who principal) bool {
	m, ok := metricOf(method, path)
	if !ok {
		return false
	}
	s.mu.Lock()
	if s.quota.seen == nil {
		s.quota.seen = map[counterKey][]time.Time{}
	}
	now := s.Now()
	var over *limit
	lims := s.limits(m, who.email)
	for i := range lims {
		l := &lims[i]
		if l.max <= 0 {
			continue
		}
		seen := s.quota.seen[l.key]
		for len(seen) > 0 && !s.inWindow(seen[0], now) {
			seen = seen[1:]
		}
		s.quota.seen[l.key] = seen
		if len(seen) >= l.max && over == nil {
			over = l
		}
	}
	if over == nil {
		for _, l := range lims {
			if l.max > 0 {
				s.quota.seen[l.key] = append(s.quota.seen[l.key], now)
			}
		}
		s.mu.Unlock()
		return false
	}
	s.quota.refused++
	s.mu.Unlock()
	if over.driveKind {
		writeReason(w, http.StatusForbidden, "userRateLimitExceeded", "User Rate Limit Exceeded")
		return true
	}
	writeQuotaExceeded(w, over)
	return true
}

// inWindow reports whether a request let through at t still counts at
// now: within the last 60 seconds (Rolling), or in the same minute.
func (s *Server) inWindow(t, now time.Time) bool {
	if s.opt.Quota.Rolling {
		return now.Before(t.Add(time.Minute))
	}
	return t.Truncate(time.Minute).Equal(now.Truncate(time.Minute))
}

// fakeProject is the consumer Google's quota errors name.
const fakeProject = "project_number:1234567890"

// writeQuotaExceeded answers as Google does a Sheets request over its
// quota: 429 RESOURCE_EXHAUSTED, the v1 "errors" list with reason
// rateLimitExceeded, and the ErrorInfo detail naming the metric and the
// limit. Google sends no Retry-After: the client backs off on its own.
func writeQuotaExceeded(w http.ResponseWriter, l *limit) {
	msg := fmt.Sprintf("Quota exceeded for quota metric '%s' and limit '%s' of service 'sheets.googleapis.com' for consumer '%s'.", l.metric, l.name, fakeProject)
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(http.StatusTooManyRequests)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
		"code":    http.StatusTooManyRequests,
		"message": msg,
		"errors":  []errorItem{{Domain: "global", Reason: "rateLimitExceeded", Message: msg}},
		"status":  statusName(http.StatusTooManyRequests),
		"details": []any{
			map[string]any{
				"@type":  "type.googleapis.com/google.rpc.ErrorInfo",
				"reason": "RATE_LIMIT_EXCEEDED",
				"domain": "googleapis.com",
				"metadata": map[string]string{
					"quota_metric":   l.metricID,
					"quota_limit":    l.id,
					"quota_location": "global",
					"service":        "sheets.googleapis.com",
					"consumer":       "projects/1234567890",
				},
			},
			map[string]any{
				"@type": "type.googleapis.com/google.rpc.Help",
				"links": []map[string]string{{"description": "Request a higher quota limit.", "url": "https://cloud.google.com/docs/quotas/help/request_increase"}},
			},
		},
	}})
}

// Throttled is how many calls the fake has refused because their quota
// (Options.Quota) was spent; a client that paces itself well meets none.
func (s *Server) Throttled() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.quota.refused
}
