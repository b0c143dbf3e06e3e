from django.urls import path

from shop import api

urlpatterns = [
    path("wallet/", api.WalletApi.as_view(), name="api-wallet"),
    path("shop/", api.ShopApi.as_view(), name="api-shop"),
    path("shop/purchases/", api.PurchaseApi.as_view(), name="api-shop-purchases"),
    path("collection/", api.CollectionApi.as_view(), name="api-collection"),
    path("collection/equipped/", api.EquipApi.as_view(), name="api-collection-equipped"),
]
