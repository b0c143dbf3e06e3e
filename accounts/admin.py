from allauth.account.decorators import secure_admin_login
from django.contrib import admin

from accounts.models import Profile

# The admin's own login form has no rate limit. Sending it to allauth's sign-in puts staff
# behind the same `login_failed` limits (per account and per address) as everyone else.
admin.site.login = secure_admin_login(admin.site.login)


@admin.register(Profile)
class ProfileAdmin(admin.ModelAdmin):
    list_display = ["user", "handle", "display_name", "adult_confirmed_at", "gate_version"]
    search_fields = ["user__username", "user__email", "handle", "display_name"]
    readonly_fields = ["adult_confirmed_at", "gate_version", "created_at"]
    raw_id_fields = ["user"]
