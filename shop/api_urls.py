from django.urls import path

from shop import api

urlpatterns = [
    path("wallet/", api.WalletApi.as_view(), name="api-wallet"),
]
