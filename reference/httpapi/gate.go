package httpapi

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"sort"
	"strings"

	"github.com/partnercommerce/conformance/reference"
)

// The operation ids of openapi.yaml.
const (
	opListProducts       = "listProducts"
	opSyncProducts       = "syncProducts"
	opGetCustomerProfile = "getCustomerProfile"
	opProvisionAccount   = "provisionAccount"
	opListPaymentMethods = "listPaymentMethods"
	opCreatePayment      = "createPayment"
	opGetPaymentStatus   = "getPaymentStatus"
)

// route is what the server knows of one operation before it parses the
// request: its id and what it requires of the caller (its endpoint group,
// the tag in openapi.yaml, and its security requirement; sync is for the
// main account only).
type route struct {
	op     string
	access reference.Access
}

// routes maps path and method to a route. TestRoutesMatchSpec checks it
// against the security requirements and tags of api.GetSwagger().
func routes() map[string]map[string]route {
	products := func(mainOnly bool) reference.Access {
		return reference.Access{Group: reference.GroupProducts, Token: true, MainOnly: mainOnly}
	}
	customers := func(token bool) reference.Access {
		return reference.Access{Group: reference.GroupCustomers, Token: token}
	}
	payments := reference.Access{Group: reference.GroupPayments, Token: true}
	return map[string]map[string]route{
		"/client/v2/product/list":               {http.MethodGet: {opListProducts, products(false)}},
		"/client/v2/product/sync":               {http.MethodGet: {opSyncProducts, products(true)}},
		"/client/v2/customer/profile":           {http.MethodGet: {opGetCustomerProfile, customers(true)}},
		"/client/v2/customer/provision_account": {http.MethodPost: {opProvisionAccount, customers(false)}},
		"/client/v2/payment/methods":            {http.MethodGet: {opListPaymentMethods, payments}},
		"/client/v2/payment":                    {http.MethodPost: {opCreatePayment, payments}},
		"/client/v2/payment/status":             {http.MethodGet: {opGetPaymentStatus, payments}},
	}
}

// allowHeader is the Allow header of a path served for these methods.
func allowHeader(methods map[string]route) string {
	var ms []string
	for m := range methods {
		ms = append(ms, m)
	}
	sort.Strings(ms)
	return strings.Join(ms, ", ")
}

type ctxKey int

const (
	routeKey ctxKey = iota
	callerKey
)

func routeFrom(ctx context.Context) route {
	r, _ := ctx.Value(routeKey).(route)
	return r
}

func callerFrom(ctx context.Context) reference.Caller {
	c, _ := ctx.Value(callerKey).(reference.Caller)
	return c
}

// callerCtx carries the route and the caller in one context value lookup
// chain of two; it avoids allocating two contexts.
type callerCtx struct {
	context.Context
	route  route
	caller reference.Caller
}

func (c *callerCtx) Value(key any) any {
	switch key {
	case routeKey:
		return c.route
	case callerKey:
		return c.caller
	}
	return c.Context.Value(key)
}

// maxBodyBytes is the request body limit.
const maxBodyBytes = 64 << 10

// gate resolves the route (404, 405), authenticates the caller (401, 403)
// before any parameter or body is parsed, limits the body (413), and puts
// the route and the caller in the request context. The common
// create-payment request takes the fast road (paymentFast) when there is
// one.
type gate struct {
	store  *reference.Store
	errs   *errorWriter
	routes map[string]map[string]route
	fast   *paymentFast // nil: every request takes the general path
	next   http.Handler
}

func (g *gate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// The escaped path, so that an encoded slash or any other escape names
	// no route: the router behind would not match it either.
	methods, ok := g.routes[r.URL.EscapedPath()]
	if !ok {
		g.errs.write(w, r, errNoRoute)
		return
	}
	rt, ok := methods[r.Method]
	if !ok {
		w.Header().Set("Allow", allowHeader(methods))
		g.errs.write(w, r, errMethodNotAllowed)
		return
	}
	// Canonical header names: Header.Get allocates to canonicalise others.
	caller, err := g.store.Authenticate(r.Header.Get("X-Secret-Key"), bearerToken(r.Header.Get("Authorization")), rt.access)
	if err != nil {
		g.errs.write(w, r, err)
		return
	}
	if r.ContentLength > maxBodyBytes {
		g.errs.write(w, r, errBodyTooLarge)
		return
	}
	var read io.Reader // the body as the fast path leaves it, when it read some
	if g.fast != nil && rt.op == opCreatePayment {
		buf := getBuffer()
		defer putBuffer(buf)
		var done bool
		if read, done = g.fast.serve(w, r, caller, buf); done {
			return
		}
	}
	r = r.WithContext(&callerCtx{Context: r.Context(), route: rt, caller: caller})
	if read != nil {
		r.Body = io.NopCloser(read)
	}
	if r.Body != nil {
		r.Body = http.MaxBytesReader(w, r.Body, maxBodyBytes)
	}
	if _, hasBody := bodyFields[rt.op]; hasBody && r.Body != nil {
		body, err := readStrictBody(r, rt.op)
		if err != nil {
			g.errs.write(w, r, err)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	g.next.ServeHTTP(w, r)
}

// bearerToken returns the token of a "Bearer <token>" header, or "" when
// the header is absent, has another scheme or an empty token.
func bearerToken(h string) string {
	const scheme = "bearer "
	if len(h) < len(scheme) || !strings.EqualFold(h[:len(scheme)], scheme) {
		return ""
	}
	return strings.TrimSpace(h[len(scheme):])
}
