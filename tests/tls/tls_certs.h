/*
 * Throwaway test credentials, generated once with the openssl command line:
 *   EC:    prime256v1 key (SEC1 and PKCS#8), self-signed, CN=localhost,
 *          SAN DNS:localhost, DNS:*.example.com
 *   ED:    Ed25519 key (PKCS#8), self-signed, same names
 *   OTHER: another P-256 key and certificate, SAN DNS:other.test
 * These keys protect nothing; never use them outside tests.
 */
#ifndef HS_TESTS_TLS_CERTS_H
#define HS_TESTS_TLS_CERTS_H

static const char EC_CERT[] =
	"-----BEGIN CERTIFICATE-----\n"
	"MIIBozCCAUqgAwIBAgIUFFJrlRLhSME0gR41aXYdBxD3I+owCgYIKoZIzj0EAwIw\n"
	"FDESMBAGA1UEAwwJbG9jYWxob3N0MCAXDTI2MTIwMjEwMTMxNFoYDzIxMjYxMTA4\n"
	"MTAxMzE0WjAUMRIwEAYDVQQDDAlsb2NhbGhvc3QwWTATBgcqhkjOPQIBBggqhkjO\n"
	"PQMBBwNCAARgfRSUS8BYzjUgJKPtm6tctasMxmZqKsm/9YrWLgZyUGlapoD2hvAH\n"
	"K956JZW+LBx1uRlzZYppW8VFtqLauCVqo3gwdjAdBgNVHQ4EFgQUDJg1kvbn4zBB\n"
	"X0fyqRZXP1v9l2wwHwYDVR0jBBgwFoAUDJg1kvbn4zBBX0fyqRZXP1v9l2wwDwYD\n"
	"VR0TAQH/BAUwAwEB/zAjBgNVHREEHDAagglsb2NhbGhvc3SCDSouZXhhbXBsZS5j\n"
	"b20wCgYIKoZIzj0EAwIDRwAwRAIgSQbHd6D8oDjtlokec+Mj7JQmSLascwUtb8Wq\n"
	"YdNfucMCIDgsnN2L0aWN7Fb2N9AC6K/hT+PyTgY+muzS6hZroUQm\n"
	"-----END CERTIFICATE-----\n";

static const char EC_KEY_SEC1[] =
	"-----BEGIN EC PRIVATE KEY-----\n"
	"MHcCAQEEIP3KVMKMAk6sfdoFqDHjegrnUFD5n7YV8/G/YmzaFtwPoAoGCCqGSM49\n"
	"AwEHoUQDQgAEYH0UlEvAWM41ICSj7ZurXLWrDMZmairJv/WK1i4GclBpWqaA9obw\n"
	"ByveeiWVviwcdbkZc2WKaVvFRbai2rglag==\n"
	"-----END EC PRIVATE KEY-----\n";

static const char EC_KEY_PKCS8[] =
	"-----BEGIN PRIVATE KEY-----\n"
	"MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg/cpUwowCTqx92gWo\n"
	"MeN6CudQUPmfthXz8b9ibNoW3A+hRANCAARgfRSUS8BYzjUgJKPtm6tctasMxmZq\n"
	"Ksm/9YrWLgZyUGlapoD2hvAHK956JZW+LBx1uRlzZYppW8VFtqLauCVq\n"
	"-----END PRIVATE KEY-----\n";

static const char ED_CERT[] =
	"-----BEGIN CERTIFICATE-----\n"
	"MIIBZDCCARagAwIBAgIURK62KTTWWfTYQBcFvPqkrpnDyG4wBQYDK2VwMBQxEjAQ\n"
	"BgNVBAMMCWxvY2FsaG9zdDAgFw0yNjEyMDIxMDEzMTRaGA8yMTI2MTEwODEwMTMx\n"
	"NFowFDESMBAGA1UEAwwJbG9jYWxob3N0MCowBQYDK2VwAyEAkgbwsRq8m2QN4hjR\n"
	"U8WOfG8e4b/OFqBrVLgLw+Q6NyijeDB2MB0GA1UdDgQWBBTaGzijDCYDewenTVct\n"
	"cYczA8lMATAfBgNVHSMEGDAWgBTaGzijDCYDewenTVctcYczA8lMATAPBgNVHRMB\n"
	"Af8EBTADAQH/MCMGA1UdEQQcMBqCCWxvY2FsaG9zdIINKi5leGFtcGxlLmNvbTAF\n"
	"BgMrZXADQQB/95aDfoPoJ4I1jEAdcV6IKpsxDOafKK0JFhrwhGb9mqDBIAwZLVdL\n"
	"Skmsv+hOphDJSF3qvTx+v5HCqEHWU34L\n"
	"-----END CERTIFICATE-----\n";

static const char ED_KEY_PKCS8[] =
	"-----BEGIN PRIVATE KEY-----\n"
	"MC4CAQAwBQYDK2VwBCIEIKIFBVuxHU5IG7Tx+9gn5ZltISQDLDwSE3SM7QzOkwAT\n"
	"-----END PRIVATE KEY-----\n";

static const char OTHER_CERT[] =
	"-----BEGIN CERTIFICATE-----\n"
	"MIIBjjCCATSgAwIBAgIUDfXKtY4EvBPFzmyqz1jSJ6kIqC0wCgYIKoZIzj0EAwIw\n"
	"EDEOMAwGA1UEAwwFb3RoZXIwIBcNMjYxMjAyMTAxMzE0WhgPMjEyNjExMDgxMDEz\n"
	"MTRaMBAxDjAMBgNVBAMMBW90aGVyMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n"
	"/GSpmkduzSESMk7MdvWbN9KvO5auobOVHQE/vsmFssjLG0jOwc3Ynfrcx1bR0ZyY\n"
	"M6Mulc/9hPzDXOlZyECevqNqMGgwHQYDVR0OBBYEFBOJACBj7GwefS+NcEbaQRb/\n"
	"/kTuMB8GA1UdIwQYMBaAFBOJACBj7GwefS+NcEbaQRb//kTuMA8GA1UdEwEB/wQF\n"
	"MAMBAf8wFQYDVR0RBA4wDIIKb3RoZXIudGVzdDAKBggqhkjOPQQDAgNIADBFAiEA\n"
	"yCtUqHCMEnbV1iuw07Kj3HHFSz2aqGbgfh6C6EFDLacCIEfJksgGqaB58KMG5/A9\n"
	"gw6VPvONT4EnB2ZlzTfhjAY+\n"
	"-----END CERTIFICATE-----\n";

static const char OTHER_KEY[] =
	"-----BEGIN EC PRIVATE KEY-----\n"
	"MHcCAQEEIJDC4NtXO8vM64PZ79oiOYH70Eu4KX+vZINXxAyZef2toAoGCCqGSM49\n"
	"AwEHoUQDQgAE/GSpmkduzSESMk7MdvWbN9KvO5auobOVHQE/vsmFssjLG0jOwc3Y\n"
	"nfrcx1bR0ZyYM6Mulc/9hPzDXOlZyECevg==\n"
	"-----END EC PRIVATE KEY-----\n";

#endif
