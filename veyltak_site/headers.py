"""Security headers Django's own middleware does not send.

SecurityMiddleware covers nosniff, Referrer-Policy, COOP and HSTS; the CSP middleware covers the
Content-Security-Policy. What is left: no page needs a camera, a microphone, a location or
payments, so a Permissions-Policy turns them off, and same-origin resource policy keeps other
sites from embedding our responses.
"""

PERMISSIONS_POLICY = ", ".join(
    f"{feature}=()"
    for feature in (
        "accelerometer",
        "camera",
        "geolocation",
        "gyroscope",
        "magnetometer",
        "microphone",
        "payment",
        "usb",
    )
)


class SecurityHeadersMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        response.headers.setdefault("Permissions-Policy", PERMISSIONS_POLICY)
        response.headers.setdefault("Cross-Origin-Resource-Policy", "same-origin")
        return response
