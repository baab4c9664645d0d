import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0004_user_language'),
    ]

    operations = [
        migrations.CreateModel(
            name='PushSubscription',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('endpoint', models.CharField(max_length=1000, unique=True, verbose_name='endpoint')),
                ('p256dh', models.CharField(max_length=100, verbose_name='public key')),
                ('auth', models.CharField(max_length=40, verbose_name='auth secret')),
                ('created_at', models.DateTimeField(auto_now_add=True, verbose_name='created')),
                ('last_used_at', models.DateTimeField(blank=True, null=True, verbose_name='last used')),
                ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='push_subscriptions', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'verbose_name': 'push subscription',
                'verbose_name_plural': 'push subscriptions',
                'ordering': ['-pk'],
            },
        ),
        migrations.CreateModel(
            name='PushPreferences',
            fields=[
                ('user', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, primary_key=True, related_name='push_preferences', serialize=False, to=settings.AUTH_USER_MODEL)),
                ('your_turn', models.BooleanField(default=True, verbose_name='my turn at a table')),
                ('next_hand', models.BooleanField(default=False, verbose_name='a new hand at my table while I am away')),
                ('club_room', models.BooleanField(default=False, verbose_name='a new room in one of my clubs')),
            ],
            options={
                'verbose_name': 'notification preferences',
                'verbose_name_plural': 'notification preferences',
            },
        ),
    ]
