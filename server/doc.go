// Package server models a MongoDB node that can be overloaded: connection establishment through
// the ingress connection rate limiter, the ingress request rate limiter (error 462), a bounded
// pool of execution slots with a FIFO queue, service-time distributions, and faults as data.
//
// Units: virtual time is sim.Time (nanoseconds); rates are per second. A server never calls a
// client: replies are messages scheduled on the sim loop with a network delay.
package server
